import Foundation
import PorticoServer
import Synchronization
import Testing

@testable import PorticoKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The single refresh flight: held until its request ends, bounded well under the provider's
/// reuse grace, and never handing back a token the API refused.
@Suite(.serialized)
struct RefreshFlightTests {
    @Test func theRefreshTimeoutIsWellUnderTheProvidersReuseGrace() {
        let provider = Provider(
            issuer: "http://127.0.0.1:9", authorizationEndpoint: URL(string: "http://127.0.0.1:9/authorize")!,
            tokenEndpoint: URL(string: "http://127.0.0.1:9/token")!)
        let manager = AuthorizationManager(provider: provider, clientID: "app", store: InMemoryTokenStore())
        #expect(manager.refreshTimeout == 10)
        #expect(manager.refreshTimeout * 2 < TokenLifetimes().refreshReuseGrace)
        #expect(HTTPClient.timingOut(after: manager.refreshTimeout).timeout == 10)
        #expect(HTTPClient.timingOut(after: 0.5).timeout == 1)
    }

    @Test func theFlightIsHeldUntilItsRequestEnds() async throws {
        // A token endpoint that takes requests and never answers, counting open connections.
        let endpoint = try HoldingListener()
        defer { endpoint.close() }
        let base = "http://127.0.0.1:\(endpoint.port)"
        let provider = Provider(
            issuer: base, authorizationEndpoint: URL(string: base + "/authorize")!,
            tokenEndpoint: URL(string: base + "/token")!)
        let tokenStore = InMemoryTokenStore()
        let manager = AuthorizationManager(
            provider: provider, clientID: "app", store: tokenStore, userAgent: DeviceCodeUserAgent { _ in },
            refreshTimeout: 1)
        let stale = StoredGrant(
            accessToken: "old", expiresAt: Date().addingTimeInterval(-5), refreshToken: "r", scopes: ["profile"])
        try tokenStore.save(stale, for: manager.storeKey)

        #expect(await Self.failure(of: manager) == .timedOut)
        // The first caller gave up; its request has not ended yet. Callers now join it
        // instead of sending the same refresh token beside it.
        let later = await withTaskGroup(of: AuthorizationError.Code?.self) { group in
            for _ in 0..<4 { group.addTask { await Self.failure(of: manager) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(later == Array(repeating: .timedOut, count: 4))
        #expect(endpoint.maximumOpen == 1)
        // The request ends by its own timeout (not the server's 30 s grace): the connection closes.
        let closed = await eventually(seconds: 10) { endpoint.open == 0 }
        #expect(closed)
        #expect(endpoint.accepted >= 1)
        #expect(try tokenStore.grant(for: manager.storeKey) == stale)
    }

    @Test func forceRefreshNeverHandsBackTheRefusedToken() async throws {
        try await KitHarness.with { harness in
            let person = try harness.addUser()
            let client = try harness.addPublicClient()
            let directory = harness.directory.appendingPathComponent("kit-tokens-\(UUID().uuidString.prefix(8))")
            let tokenStore = FileTokenStore(directory: directory)
            let robot = SignInRobot(email: person.email, password: harness.password)
            // Bearer tokens: the "other process" below refreshes with a plain form post, which a
            // DPoP-bound refresh token would refuse (DPoPTests covers that).
            let manager = try await harness.manager(
                for: client, store: tokenStore,
                userAgent: SystemBrowserUserAgent(timeout: .seconds(60), opener: robot.opener), usesDPoP: false)
            _ = try await manager.authorize(AuthorizeRequest(scopes: [.openID, .profile]))
            var grant = try #require(try tokenStore.grant(for: manager.storeKey))
            grant.expiresAt = Date().addingTimeInterval(-10)
            try tokenStore.save(grant, for: manager.storeKey)

            // Another process of the app holds the refresh lease...
            let lockPath = directory.appendingPathComponent(".\(manager.storeKey.storageName).lock").path
            let lock = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            try #require(lock >= 0 && flock(lock, LOCK_EX) == 0)
            var locked = true
            defer { if locked { closeDescriptor(lock) } }
            // ...while this one needs a fresh token and starts the flight, which waits for it.
            let waiting = Task { try await manager.validAccessToken() }
            #expect(
                await eventually(seconds: 10) { await RefreshCoordinator.shared.callers(of: manager.grantKey) == 1 })
            // The other process refreshes and stores the result.
            let other = try await harness.post(
                "oauth/token",
                [
                    ("grant_type", "refresh_token"), ("refresh_token", try #require(grant.refreshToken)),
                    ("client_id", client.id),
                ])
            let otherAccess = try #require(other.json["access_token"]?.stringValue)
            let otherRefresh = try #require(other.json["refresh_token"]?.stringValue)
            grant.accessToken = otherAccess
            grant.refreshToken = otherRefresh
            grant.expiresAt = Date().addingTimeInterval(3600)
            try tokenStore.save(grant, for: manager.storeKey)
            // The API refuses that fresh token (scopes changed at the provider, say); the app
            // asks for another and joins the running flight.
            let forced = Task { try await manager.forceRefresh(replacing: otherAccess) }
            #expect(
                await eventually(seconds: 10) { await RefreshCoordinator.shared.callers(of: manager.grantKey) == 2 })
            closeDescriptor(lock)
            locked = false

            // The flight found the other process's token fresh: right for the plain caller...
            #expect(try await waiting.value == otherAccess)
            // ...but never for the one whose API refused it: it refreshed once more.
            let replaced = try await forced.value
            #expect(replaced != otherAccess)
            let stored = try #require(try tokenStore.grant(for: manager.storeKey))
            #expect(stored.accessToken == replaced)
            #expect(try harness.oneRotation(from: otherRefresh, to: stored.refreshToken))

            // Asked again about the same refused token, it hands out the replacement without
            // another refresh.
            #expect(try await manager.forceRefresh(replacing: otherAccess) == replaced)
            #expect(try tokenStore.grant(for: manager.storeKey)?.refreshToken == stored.refreshToken)
        }
    }

    /// The error code `manager.validAccessToken()` ends with, nil on success.
    private static func failure(of manager: AuthorizationManager) async -> AuthorizationError.Code? {
        do {
            _ = try await manager.validAccessToken()
            return nil
        } catch { return error.code }
    }
}

/// Whether `condition` holds within `seconds`, checked every 20 ms.
func eventually(seconds: Double, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int64(seconds * 1000)))
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}

/// A loopback listener that accepts every connection, reads what comes, never answers, and
/// counts how many connections are open at once (a peer's close is seen before a new accept).
final class HoldingListener: Sendable {
    let port: Int
    private let listener: Int32
    private let counts = Mutex<(accepted: Int, open: Int, maximumOpen: Int)>((0, 0, 0))
    private let stopping = Atomic<Bool>(false)
    private let stopped = DispatchSemaphore(value: 0)

    init() throws {
        let listener = socket(AF_INET, streamSocketType, 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 16) == 0
                    && getsockname(listener, $0, &length) == 0
            }
        }
        try #require(ok)
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in
            var connections: [Int32] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !stopping.load(ordering: .acquiring) {
                var watched = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
                watched += connections.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
                guard poll(&watched, nfds_t(watched.count), 20) > 0 else { continue }
                var alive: [Int32] = []
                for (index, connection) in connections.enumerated() {
                    if watched[index + 1].revents != 0, read(connection, &buffer, buffer.count) <= 0 {
                        closeDescriptor(connection)
                        counts.withLock { $0.open -= 1 }
                    } else {
                        alive.append(connection)
                    }
                }
                connections = alive
                if watched[0].revents & Int16(POLLIN) != 0 {
                    let connection = accept(listener, nil, nil)
                    if connection >= 0 {
                        connections.append(connection)
                        counts.withLock {
                            $0.accepted += 1
                            $0.open += 1
                            $0.maximumOpen = max($0.maximumOpen, $0.open)
                        }
                    }
                }
            }
            connections.forEach(closeDescriptor)
            closeDescriptor(listener)
            stopped.signal()
        }
    }

    var accepted: Int { counts.withLock { $0.accepted } }
    var open: Int { counts.withLock { $0.open } }
    var maximumOpen: Int { counts.withLock { $0.maximumOpen } }

    func close() {
        stopping.store(true, ordering: .releasing)
        stopped.wait()
    }
}
