import Foundation
import PorticoHTTP
import PorticoStore
import Testing

@testable import PorticoServer

/// The in-memory client cache of the back-channel endpoints, over a real SQLite store.
@Suite struct ClientCacheTests {
    private func withStore(_ body: (any Store) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("portico-cache-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try openStore(url: "sqlite:\(directory.path)/portico.db")
        defer { store.close() }
        try body(store)
    }

    private func client(_ name: String) -> Client {
        Client(
            name: name, type: .public, redirectURIs: ["https://app.example/cb"], allowedScopes: ["openid"],
            allowedGrantTypes: ["authorization_code"])
    }

    @Test func aRemovedClientIsForgottenAfterTheTimeToLive() throws {
        try withStore { store in
            let cache = ClientCache(store: store, timeToLive: .milliseconds(300))
            let app = client("Cached")
            try store.transaction { try $0.insert(app) }
            #expect(try cache.client(id: app.id)?.name == "Cached")
            _ = try store.transaction { try $0.deleteClient(id: app.id) }
            #expect(try cache.client(id: app.id)?.name == "Cached", "served from memory within the TTL")
            Thread.sleep(forTimeInterval: 0.4)
            #expect(try cache.client(id: app.id) == nil)
        }
    }

    @Test func unknownIdsAreNotCachedAndForgetDropsAnEntry() throws {
        try withStore { store in
            let cache = ClientCache(store: store, timeToLive: .seconds(60))
            let app = client("Late")
            #expect(try cache.client(id: app.id) == nil)
            try store.transaction { try $0.insert(app) }
            #expect(try cache.client(id: app.id)?.name == "Late", "a miss is not remembered")
            var renamed = app
            renamed.name = "Renamed"
            try store.transaction { try $0.update(renamed) }
            #expect(try cache.client(id: app.id)?.name == "Late")
            cache.forget(id: app.id)
            #expect(try cache.client(id: app.id)?.name == "Renamed")
        }
    }

    @Test func theCacheEmptiesItselfAtCapacity() throws {
        try withStore { store in
            let cache = ClientCache(store: store, timeToLive: .seconds(60), capacity: 2)
            let apps = (0..<3).map { client("App \($0)") }
            for app in apps { try store.transaction { try $0.insert(app) } }
            for app in apps { _ = try cache.client(id: app.id) }
            var renamed = apps[0]
            renamed.name = "Changed"
            try store.transaction { try $0.update(renamed) }
            #expect(try cache.client(id: apps[0].id)?.name == "Changed", "evicted when the third arrived")
        }
    }

    /// The epoll thread's first step of the token endpoint reads clients from memory alone: a
    /// client not read recently makes it hand the request over instead of reading the store.
    @Test func memoryOnlyAuthenticationNeverReadsTheStore() throws {
        try withStore { store in
            let cache = ClientCache(store: store, timeToLive: .milliseconds(300))
            let app = client("Memory")
            try store.transaction { try $0.insert(app) }
            #expect(cache.clientInMemory(id: app.id) == nil, "not read yet")
            let authenticator = ClientAuthenticator(store: store, cache: cache).fromMemory
            let form = OAuthParameters(["client_id": app.id])
            let request = Request(method: .post, path: "/oauth/token", headers: HTTPHeaders())
            #expect(throws: ClientAuthenticator.NotInMemory.self) {
                _ = try authenticator.authenticate(request, parameters: form)
            }
            #expect(cache.clientInMemory(id: app.id) == nil, "the memory-only lookup read nothing")
            _ = try cache.client(id: app.id)
            #expect(try authenticator.authenticate(request, parameters: form).client.id == app.id)
            Thread.sleep(forTimeInterval: 0.4)
            #expect(cache.clientInMemory(id: app.id) == nil, "no longer fresh")
        }
    }
}
