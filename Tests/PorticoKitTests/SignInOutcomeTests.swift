import Foundation
import PorticoServer
import PorticoStore
import Testing

@testable import PorticoKit

/// What an authorization reports besides tokens: unreadable scopes refused early, a failed
/// profile fetch said, and `.auto`'s choice after a failed refresh.
@Suite(.serialized)
struct SignInOutcomeTests {
    /// A user agent that must never be asked.
    struct NoPages: UserAgent {
        func authorize(_ context: AuthorizationContext) async throws -> AuthorizationOutcome {
            Issue.record("the provider's pages were shown")
            throw AuthorizationError(.invalidInput, "no pages in this test")
        }
    }

    @Test func emailWithoutOpenIDIsRefusedBeforeAnyPage() async throws {
        try await KitHarness.with { harness in
            let manager = try await harness.manager(for: try harness.addPublicClient(), userAgent: NoPages())
            let error = await #expect(throws: AuthorizationError.self) {
                try await manager.authorize(AuthorizeRequest(scopes: [.email]))
            }
            #expect(error?.code == .invalidInput)
            #expect(error?.message.contains("openID") == true)
        }
    }

    @Test func aFailedProfileFetchIsReportedWithTheResult() async throws {
        try await KitHarness.with { harness in
            let person = try harness.addUser()
            let manager = try await harness.signIn(person, client: try harness.addPublicClient(), scopes: [.openID]) {
                // Userinfo answers 404 here: the sign-in works, the profile cannot be read.
                $0.userInfoEndpoint = harness.issuer.appendingPathComponent("no-such-userinfo")
            }
            let result = try await manager.authorize(AuthorizeRequest(scopes: [.openID], interactiveStrategy: .never))
            #expect(result.accessToken != nil)
            #expect(result.user == nil)
            #expect(result.userError?.code == .invalidResponse)
        }
    }

    @Test func autoKeepsTheGrantOnANetworkFailureAndSignsInAgainAfterInvalidGrant() async throws {
        try await KitHarness.with { harness in
            let person = try harness.addUser()
            let client = try harness.addPublicClient()
            let store = InMemoryTokenStore()
            let manager = try await harness.signIn(person, client: client, store: store)
            try expireAccessToken(of: manager)
            let stale = try #require(try store.grant(for: manager.storeKey))

            // The token endpoint cannot be reached (port 9 is closed): report it, keep the grant.
            var unreachable = manager.provider
            unreachable.tokenEndpoint = URL(string: "http://127.0.0.1:9/token")!
            let offline = AuthorizationManager(
                provider: unreachable, clientID: client.id, redirectURI: manager.redirectURI, store: store,
                userAgent: NoPages())
            let error = await #expect(throws: AuthorizationError.self) {
                try await offline.authorize(AuthorizeRequest(scopes: [.openID, .profile]))
            }
            #expect(error?.code == .network)
            #expect(try store.grant(for: manager.storeKey) == stale)

            // The provider no longer honours the grant: `.auto` shows the pages again.
            let revoked = try await harness.post(
                "oauth/revoke", [("token", try #require(stale.refreshToken)), ("client_id", client.id)])
            #expect(revoked.status == 200)
            let robot = SignInRobot(email: person.email, password: harness.password)
            let again = AuthorizationManager(
                provider: manager.provider, clientID: client.id, redirectURI: manager.redirectURI, store: store,
                userAgent: SystemBrowserUserAgent(timeout: .seconds(60), opener: robot.opener))
            let result = try await again.authorize(AuthorizeRequest(scopes: [.openID, .profile]))
            #expect(result.user?.userID == person.id)
            #expect(robot.delivered.withLock { $0 } != nil)
            #expect(try store.grant(for: manager.storeKey)?.refreshToken != stale.refreshToken)
        }
    }
}
