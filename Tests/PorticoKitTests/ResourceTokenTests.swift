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

/// `accessToken(for:)`: tokens for one resource server (RFC 8707) from the grant's refresh
/// token, cached beside the grant's own, through the single refresh, against a real provider.
@Suite(.serialized)
struct ResourceTokenTests {
    private static let api = "https://api.example/orders"

    private func signedIn(_ harness: KitHarness) async throws -> (AuthorizationManager, UserRecord) {
        let person = try harness.addUser()
        let client = try harness.addPublicClient(resources: [Self.api])
        let robot = SignInRobot(email: person.email, password: harness.password)
        let manager = try await harness.manager(
            for: client, userAgent: SystemBrowserUserAgent(timeout: .seconds(60), opener: robot.opener))
        _ = try await manager.authorize(AuthorizeRequest(scopes: [.openID, .profile]))
        return (manager, person)
    }

    /// The `aud` of a JWT access token, as a list.
    private func audience(_ token: String) throws -> [String] {
        let parts = token.split(separator: ".")
        try #require(parts.count == 3)
        let payload = try #require(Base64URLCoding.decode(parts[1]))
        let claims = try #require(ProfileValue(parsing: payload)?.objectValue)
        if let single = claims["aud"]?.stringValue { return [single] }
        return claims["aud"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    @Test func aResourceTokenIsMeantForTheResourceAndCached() async throws {
        try await KitHarness.with { harness in
            let (manager, _) = try await signedIn(harness)
            let before = try #require(try manager.store.grant(for: manager.storeKey))

            let token = try await manager.accessToken(for: URL(string: Self.api)!)
            #expect(try audience(token) == [Self.api])
            #expect(try audience(before.accessToken) != [Self.api])
            let after = try #require(try manager.store.grant(for: manager.storeKey))
            // The grant's own token stays; the refresh token rotated once, the grant keeps the new one.
            #expect(after.accessToken == before.accessToken)
            #expect(try harness.oneRotation(from: before.refreshToken, to: after.refreshToken))

            // A second call is served from the cache: same token, no further rotation.
            #expect(try await manager.accessToken(for: URL(string: Self.api)!) == token)
            #expect(try manager.store.grant(for: manager.storeKey)?.refreshToken == after.refreshToken)

            // The grant's own refresh still gives a token for the provider, and keeps the
            // resource's token.
            #expect(try await manager.forceRefresh() != before.accessToken)
            let refreshed = try #require(try manager.store.grant(for: manager.storeKey))
            #expect(try audience(refreshed.accessToken) != [Self.api])
            #expect(refreshed.resourceTokens[Self.api]?.accessToken == token)
        }
    }

    @Test func resourceAndPlainRefreshesShareTheSingleFlight() async throws {
        try await KitHarness.with { harness in
            let (manager, person) = try await signedIn(harness)
            var grant = try #require(try manager.store.grant(for: manager.storeKey))
            let initial = try #require(grant.refreshToken)
            grant.expiresAt = Date().addingTimeInterval(-10)
            try manager.store.save(grant, for: manager.storeKey)

            let results = try await withThrowingTaskGroup(of: (Bool, String).self) { group in
                for index in 0..<40 {
                    group.addTask {
                        index.isMultiple(of: 2)
                            ? (true, try await manager.accessToken(for: URL(string: Self.api)!))
                            : (false, try await manager.validAccessToken())
                    }
                }
                return try await group.reduce(into: [(Bool, String)]()) { $0.append($1) }
            }
            let resourceTokens = Set(results.filter(\.0).map(\.1))
            let plainTokens = Set(results.filter { !$0.0 }.map(\.1))
            #expect(resourceTokens.count == 1)
            #expect(plainTokens.count == 1)
            // Plain callers that joined the resource's refresh did not take the expired token.
            #expect(plainTokens.first != grant.accessToken)
            #expect(try audience(try #require(resourceTokens.first)) == [Self.api])
            // Refreshes one after another: no refresh token was sent twice, so the family lives
            // and the stored refresh token is its current one.
            let families = try harness.store.refreshFamilies(userID: person.id)
            #expect(families.count == 1)
            let current = try #require(try manager.store.grant(for: manager.storeKey)?.refreshToken)
            let record = try harness.store.read { try RefreshTokenPolicy.token(current, in: $0) }
            #expect(record != nil && record?.rotatedAt == nil)
            // Two requests with the sign-in's refresh token at once would have left it as the
            // token the last rotation replaced (the second taken for a retry); one after the
            // other, it is older than that and the provider no longer knows it.
            #expect(try harness.store.read { try RefreshTokenPolicy.token(initial, in: $0) } == nil)
            #expect(try await manager.forceRefresh() != results.first { !$0.0 }?.1)
        }
    }

    @Test func aPlainCallerThatJoinsAResourceRefreshGetsAFreshToken() async throws {
        try await KitHarness.with { harness in
            let person = try harness.addUser()
            let client = try harness.addPublicClient(resources: [Self.api])
            let directory = harness.directory.appendingPathComponent("kit-tokens-\(UUID().uuidString.prefix(8))")
            let tokenStore = FileTokenStore(directory: directory)
            let robot = SignInRobot(email: person.email, password: harness.password)
            let manager = try await harness.manager(
                for: client, store: tokenStore,
                userAgent: SystemBrowserUserAgent(timeout: .seconds(60), opener: robot.opener))
            _ = try await manager.authorize(AuthorizeRequest(scopes: [.openID, .profile]))
            var grant = try #require(try tokenStore.grant(for: manager.storeKey))
            grant.expiresAt = Date().addingTimeInterval(-10)
            try tokenStore.save(grant, for: manager.storeKey)

            // Holding the store's refresh lock keeps the resource's flight waiting until the
            // plain caller has joined it.
            let lockPath = directory.appendingPathComponent(".\(manager.storeKey.storageName).lock").path
            let lock = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            try #require(lock >= 0 && flock(lock, LOCK_EX) == 0)
            var locked = true
            defer { if locked { closeDescriptor(lock) } }
            let resource = Task { try await manager.accessToken(for: URL(string: Self.api)!) }
            #expect(
                await eventually(seconds: 10) { await RefreshCoordinator.shared.callers(of: manager.grantKey) == 1 })
            let plain = Task { try await manager.validAccessToken() }
            #expect(
                await eventually(seconds: 10) { await RefreshCoordinator.shared.callers(of: manager.grantKey) == 2 })
            closeDescriptor(lock)
            locked = false

            #expect(try audience(try await resource.value) == [Self.api])
            // The resource's refresh left the grant's own token expired: the plain caller ran a
            // refresh of its own instead of taking it.
            let token = try await plain.value
            #expect(token != grant.accessToken)
            #expect(try tokenStore.grant(for: manager.storeKey)?.accessToken == token)
        }
    }

    @Test func anUnregisteredResourceIsRefusedAndChangesNothing() async throws {
        try await KitHarness.with { harness in
            let (manager, _) = try await signedIn(harness)
            let before = try #require(try manager.store.grant(for: manager.storeKey))

            let refused = await #expect(throws: AuthorizationError.self) {
                try await manager.accessToken(for: URL(string: "https://elsewhere.example/")!)
            }
            #expect(refused?.oauthError == "invalid_target")
            #expect(try manager.store.grant(for: manager.storeKey) == before)
            // The refresh token is still the current one: the next refresh works.
            #expect(try await manager.forceRefresh() != before.accessToken)

            let malformed = await #expect(throws: AuthorizationError.self) {
                try await manager.accessToken(for: URL(string: "https://api.example/orders#top")!)
            }
            #expect(malformed?.code == .invalidInput)
        }
    }
}
