import Foundation
import PorticoCrypto
import PorticoStore
import Synchronization
import Testing

@testable import PorticoServer

/// The parsed `private_key_jwt` keys of each client: parsed once per registered JWKS, parsed
/// anew when the registration's JWKS changes, and bounded.
@Suite struct ClientKeySetCacheTests {
    /// Counts the parser's calls.
    private final class Parses: Sendable {
        let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
    }

    private static func cache(capacity: Int = 10, counting parses: Parses) -> ClientKeySetCache {
        ClientKeySetCache(capacity: capacity) { json in
            parses.count.withLock { $0 += 1 }
            return try? ClientKeySet(json: json)
        }
    }

    private static func client(keys: [SigningKey]) -> Client {
        var client = Client(
            name: "Backend", type: .confidential, redirectURIs: [], allowedScopes: ["orders:read"],
            allowedGrantTypes: ["client_credentials"])
        client.jwks = JWKSet(keys: keys.map(\.publicJWK)).jsonString
        return client
    }

    /// The key ids of `client`'s registered keys, parsed without the cache.
    private static func keyIDs(of client: Client) throws -> [String] {
        try ClientKeySet(json: try #require(client.jwks)).keys.map(\.keyID)
    }

    @Test func aClientsKeysAreParsedOnceAndAgainWhenItsJWKSChanges() throws {
        let parses = Parses()
        let cache = Self.cache(counting: parses)
        let first = try SigningKey.generate(.es256)
        var backend = Self.client(keys: [first])
        let firstIDs = try Self.keyIDs(of: backend)
        for _ in 0..<5 { #expect(cache.keySet(of: backend)?.keys.map(\.keyID) == firstIDs) }
        #expect(parses.value == 1, "the same registered JWKS is parsed once")
        let second = try SigningKey.generate(.es256)
        backend.jwks = JWKSet(keys: [second.publicJWK]).jsonString
        let secondIDs = try Self.keyIDs(of: backend)
        #expect(secondIDs != firstIDs)
        #expect(cache.keySet(of: backend)?.keys.map(\.keyID) == secondIDs)
        #expect(parses.value == 2, "a changed registration is parsed anew")
        backend.jwks = nil
        #expect(cache.keySet(of: backend) == nil, "a client without keys has none, cached or not")
    }

    @Test func unusableKeysAreNotCachedAndTheCacheIsBounded() throws {
        let parses = Parses()
        let cache = Self.cache(capacity: 2, counting: parses)
        var broken = Self.client(keys: [])
        broken.jwks = #"{"keys": "not a list"}"#
        #expect(cache.keySet(of: broken) == nil)
        #expect(cache.keySet(of: broken) == nil)
        #expect(parses.value == 2, "a failed parse is not remembered")
        let clients = try (0..<3).map { _ in Self.client(keys: [try SigningKey.generate(.es256)]) }
        for client in clients { #expect(cache.keySet(of: client) != nil) }
        #expect(parses.value == 5)
        // The third emptied the full cache: the first is parsed again, the third is still kept.
        _ = cache.keySet(of: clients[2])
        #expect(parses.value == 5)
        _ = cache.keySet(of: clients[0])
        #expect(parses.value == 6)
    }
}
