import Foundation
import PorticoServer
import PorticoStore
import Testing

@testable import PorticoKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Stored grants, silent refresh, `.never`, sign-out, and refresh failures against a real provider.
@Suite(.serialized)
struct TokenLifecycleTests {
    /// Signs `person` in through the loopback flow and returns the manager.
    private func signedIn(
        _ harness: KitHarness, _ person: UserRecord, client: Client,
        store: any TokenStore = InMemoryTokenStore(),
        scopes: [Scope] = [.openID, .profile]
    ) async throws -> AuthorizationManager {
        let robot = SignInRobot(email: person.email, password: harness.password)
        let manager = try await harness.manager(
            for: client, store: store, userAgent: SystemBrowserUserAgent(timeout: .seconds(60), opener: robot.opener))
        _ = try await manager.authorize(AuthorizeRequest(scopes: scopes))
        return manager
    }

    /// Makes the stored access token look expired.
    private func expire(_ manager: AuthorizationManager) throws {
        var grant = try #require(try manager.store.grant(for: manager.storeKey))
        grant.expiresAt = Date().addingTimeInterval(-10)
        try manager.store.save(grant, for: manager.storeKey)
    }

    @Test func neverUsesTheStoredGrantAndRefreshesSilently() async throws {
        try await KitHarness.with { harness in
            let person = try harness.addUser()
            let manager = try await signedIn(harness, person, client: try harness.addPublicClient())
            let first = try #require(try manager.store.grant(for: manager.storeKey))

            let cached = try await manager.authorize(AuthorizeRequest(scopes: [.profile], interactiveStrategy: .never))
            #expect(cached.accessToken == first.accessToken)
            #expect(
                try harness.store.read { try RefreshTokenPolicy.token(try #require(first.refreshToken), in: $0) }?
                    .rotatedAt == nil)

            try expire(manager)
            let refreshed = try await manager.authorize(
                AuthorizeRequest(scopes: [.profile], interactiveStrategy: .never))
            #expect(refreshed.accessToken != first.accessToken)
            let second = try manager.store.grant(for: manager.storeKey)?.refreshToken
            #expect(try harness.oneRotation(from: first.refreshToken, to: second))
            // The profile came from the cache, the claims survived the refresh.
            #expect(refreshed.user?.userID == person.id)
            #expect(try manager.store.grant(for: manager.storeKey)?.idTokenClaims?["sub"]?.stringValue == person.id)

            // Scopes beyond the grant: `.never` refuses instead of showing a page.
            let error = await #expect(throws: AuthorizationError.self) {
                try await manager.authorize(AuthorizeRequest(scopes: [.openID, .email], interactiveStrategy: .never))
            }
            #expect(error?.code == .authorizationRequired)
        }
    }

    @Test func neverAfterTheRefreshTokenWasRevokedRequiresAuthorizationAndClearsTheGrant() async throws {
        try await KitHarness.with { harness in
            let person = try harness.addUser()
            let client = try harness.addPublicClient()
            let manager = try await signedIn(harness, person, client: client)
            let grant = try #require(try manager.store.grant(for: manager.storeKey))
            let revoked = try await harness.post(
                "oauth/revoke", [("token", try #require(grant.refreshToken)), ("client_id", client.id)])
            #expect(revoked.status == 200)
            try expire(manager)

            let error = await #expect(throws: AuthorizationError.self) {
                try await manager.authorize(AuthorizeRequest(scopes: [.profile], interactiveStrategy: .never))
            }
            #expect(error?.code == .authorizationRequired)
            #expect(error?.oauthError == "invalid_grant")
            #expect(try manager.store.grant(for: manager.storeKey) == nil)
            await #expect(throws: AuthorizationError.self) { try await manager.validAccessToken() }
        }
    }

    @Test func aHundredConcurrentCallersShareOneRefresh() async throws {
        try await KitHarness.with { harness in
            let person = try harness.addUser()
            let client = try harness.addPublicClient()
            let tokenStore = InMemoryTokenStore()
            let manager = try await signedIn(harness, person, client: client, store: tokenStore)
            try expire(manager)
            let before = try #require(try tokenStore.grant(for: manager.storeKey))
            let old = before.accessToken
            // A second manager on the same store must join the same refresh.
            let sibling = try await harness.manager(
                for: client, store: tokenStore, userAgent: DeviceCodeUserAgent { _ in })

            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<100 {
                    let caller = index.isMultiple(of: 2) ? manager : sibling
                    group.addTask { try await caller.validAccessToken() }
                }
                var all: [String] = []
                for try await token in group { all.append(token) }
                return all
            }
            #expect(tokens.count == 100)
            #expect(Set(tokens).count == 1)
            #expect(tokens.first != old)
            // Exactly one refresh request reached the provider: a second one would have rotated
            // again, been taken for a retry (a different access token) or revoked the family.
            let after = try tokenStore.grant(for: manager.storeKey)?.refreshToken
            #expect(try harness.oneRotation(from: before.refreshToken, to: after))
            #expect(try harness.store.refreshFamilies(userID: person.id).count == 1)
        }
    }

    @Test func signOutRevokesAtTheProviderAndForgetsTheGrant() async throws {
        try await KitHarness.with { harness in
            let person = try harness.addUser()
            let client = try harness.addPublicClient()
            let resourceServer = try harness.addResourceServer()
            let manager = try await signedIn(harness, person, client: client)
            let grant = try #require(try manager.store.grant(for: manager.storeKey))
            #expect(try await harness.isActive(accessToken: grant.accessToken, introspectingAs: resourceServer))

            try await manager.signOut()

            #expect(try manager.store.grant(for: manager.storeKey) == nil)
            #expect(try await !harness.isActive(accessToken: grant.accessToken, introspectingAs: resourceServer))
            // The refresh token is dead too: its family is revoked and the token endpoint refuses it.
            #expect(try harness.store.refreshFamilies(userID: person.id).isEmpty)
            let reuse = try await harness.post(
                "oauth/token",
                [
                    ("grant_type", "refresh_token"), ("refresh_token", try #require(grant.refreshToken)),
                    ("client_id", client.id),
                ])
            #expect(reuse.json["error"]?.stringValue == "invalid_grant")
        }
    }

    @Test func signOutClearsLocalStateWhenTheProviderIsUnreachable() async throws {
        let tokenStore = InMemoryTokenStore()
        let provider = Provider(
            issuer: "http://127.0.0.1:9", authorizationEndpoint: URL(string: "http://127.0.0.1:9/authorize")!,
            tokenEndpoint: URL(string: "http://127.0.0.1:9/token")!,
            revocationEndpoint: URL(string: "http://127.0.0.1:9/revoke")!)
        let manager = AuthorizationManager(
            provider: provider, clientID: "app", store: tokenStore, userAgent: DeviceCodeUserAgent { _ in })
        try tokenStore.save(
            StoredGrant(accessToken: "a", expiresAt: nil, refreshToken: "r", scopes: ["profile"]), for: manager.storeKey
        )
        try await manager.signOut()
        #expect(try tokenStore.grant(for: manager.storeKey) == nil)
    }

    @Test func aNetworkFailureKeepsTheGrant() async throws {
        let tokenStore = InMemoryTokenStore()
        let provider = Provider(
            issuer: "http://127.0.0.1:9", authorizationEndpoint: URL(string: "http://127.0.0.1:9/authorize")!,
            tokenEndpoint: URL(string: "http://127.0.0.1:9/token")!)
        let manager = AuthorizationManager(
            provider: provider, clientID: "app", store: tokenStore, userAgent: DeviceCodeUserAgent { _ in })
        let stale = StoredGrant(
            accessToken: "old", expiresAt: Date().addingTimeInterval(-5), refreshToken: "r", scopes: ["profile"])
        try tokenStore.save(stale, for: manager.storeKey)
        let error = await #expect(throws: AuthorizationError.self) { try await manager.validAccessToken() }
        #expect(error?.code == .network)
        #expect(try tokenStore.grant(for: manager.storeKey) == stale)
    }

    @Test func aHangingRefreshTimesOutAndKeepsTheGrant() async throws {
        // A socket that accepts connections (the kernel's backlog) but never answers.
        let silent = try SilentListener()
        defer { silent.close() }
        let tokenStore = InMemoryTokenStore()
        let base = "http://127.0.0.1:\(silent.port)"
        let provider = Provider(
            issuer: base, authorizationEndpoint: URL(string: base + "/authorize")!,
            tokenEndpoint: URL(string: base + "/token")!)
        let manager = AuthorizationManager(
            provider: provider, clientID: "app", store: tokenStore, userAgent: DeviceCodeUserAgent { _ in },
            refreshTimeout: 0.5)
        let stale = StoredGrant(
            accessToken: "old", expiresAt: Date().addingTimeInterval(-5), refreshToken: "r", scopes: ["profile"])
        try tokenStore.save(stale, for: manager.storeKey)
        let errors = await withTaskGroup(of: AuthorizationError.Code?.self) { group in
            for _ in 0..<5 {
                group.addTask {
                    do {
                        _ = try await manager.validAccessToken()
                        return nil
                    } catch { return (error as? AuthorizationError)?.code }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(errors == Array(repeating: AuthorizationError.Code.timedOut, count: 5))
        #expect(try tokenStore.grant(for: manager.storeKey) == stale)
        // A later caller joins the refresh while its request runs (bounded by its own 1 s
        // timeout), or starts one after it: either way it times out, the grant kept.
        let again = await #expect(throws: AuthorizationError.self) { try await manager.validAccessToken() }
        #expect(again?.code == .timedOut)
        #expect(try tokenStore.grant(for: manager.storeKey) == stale)
    }
}

/// A listening socket nobody accepts on.
final class SilentListener: Sendable {
    let port: Int
    private let descriptor: Int32

    init() throws {
        let descriptor = socket(AF_INET, streamSocketType, 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && listen(descriptor, 16) == 0
                    && getsockname(descriptor, $0, &length) == 0
            }
        }
        try #require(ok)
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { closeDescriptor(descriptor) }
}
