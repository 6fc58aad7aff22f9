import Foundation
import PorticoServer
import PorticoStore
import Testing

@testable import PorticoKit

/// Device login end to end against the real provider: the SDK asks for a code, "the person"
/// approves it over HTTP on the provider's /device pages, and the SDK's polling gets the tokens.
@Suite(.serialized)
struct DeviceFlowEndToEndTests {
    static let deviceGrants = ["urn:ietf:params:oauth:grant-type:device_code", "refresh_token"]

    @Test func signsInWithAnRFC8628CodeApprovedOverHTTP() async throws {
        try await KitHarness.with { harness in
            let person = try harness.addUser(name: "Couch Person")
            let client = try harness.addPublicClient(grants: Self.deviceGrants)
            let robot = SignInRobot(email: person.email, password: harness.password)
            let prompt = DeviceCodeUserAgent { prompt in
                let target = prompt.verificationURLComplete ?? prompt.verificationURL
                Task { try? await robot.signIn(at: target) }
            }
            let manager = try await harness.manager(for: client, userAgent: prompt)
            #expect(manager.provider.deviceAuthorizationEndpoint != nil)

            let result = try await manager.authorize(AuthorizeRequest(scopes: [.openID, .profile]))

            #expect(result.user?.userID == person.id)
            #expect(result.user?.name == "Couch Person")
            let grant = try #require(try manager.store.grant(for: manager.storeKey))
            #expect(grant.refreshToken != nil)
            #expect(grant.idTokenClaims?["sub"]?.stringValue == person.id)
            // The polls carried DPoP proofs, so the tokens are bound to the installation's key.
            #expect(grant.tokenType == "DPoP")
        }
    }

    @Test func signsInWithTheLoginWithAmazonCodePair() async throws {
        try await KitHarness.with { harness in
            let person = try harness.addUser()
            let client = try harness.addPublicClient(grants: Self.deviceGrants)
            let robot = SignInRobot(email: person.email, password: harness.password)
            var provider = try await Provider.discover(issuer: harness.issuer)
            provider.deviceAuthorizationEndpoint = harness.issuer.appendingPathComponent("auth/o2/create/codepair")
            provider.deviceCodeDialect = .loginWithAmazon
            let agent = DeviceCodeUserAgent { prompt in
                // LWA shows no ready-made link: the person types the code at the verification URL.
                var components = URLComponents(url: prompt.verificationURL, resolvingAgainstBaseURL: false)
                components?.queryItems = [URLQueryItem(name: "user_code", value: prompt.userCode)]
                guard let typed = components?.url else { return }
                Task { try? await robot.signIn(at: typed) }
            }
            let manager = AuthorizationManager(
                provider: provider, clientID: client.id, store: InMemoryTokenStore(), userAgent: agent)

            let result = try await manager.authorize(AuthorizeRequest(scopes: [.profile]))

            #expect(result.user?.email == person.email)
        }
    }
}
