import Foundation
import PorticoTesting
import Testing

/// A code bound to a resource (RFC 8707 `resource` at /oauth/authorize) binds its refresh
/// family too: every refreshed access token keeps that `aud`, and a refresh cannot move it
/// to another resource.
@Suite struct RefreshResourceTests {
    static let orders = "https://orders.example/api"
    static let payments = "https://payments.example/api"

    @Test("a refresh keeps the resource the code was bound to")
    func refreshKeepsTheCodesResource() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let client = try harness.addExchangeClient(
                group: nil, scopes: ["openid", "profile"], resources: [Self.orders, Self.payments])
            let credentials = harness.exchangeCredentials(client)
            let code = try harness.issueExchangeCode(for: client, user: user, scopes: ["openid"], resource: Self.orders)
            let redeemed = try await harness.token(
                [
                    ("grant_type", "authorization_code"), ("code", code.code), ("redirect_uri", code.redirectURI),
                    ("code_verifier", code.verifier),
                ], client: credentials)
            #expect(redeemed.status == 200, "\(redeemed.text)")
            var refreshToken = try #require(redeemed.string("refresh_token"))
            for _ in 0..<2 {
                let refreshed = try await harness.token(
                    [("grant_type", "refresh_token"), ("refresh_token", refreshToken)], client: credentials)
                #expect(refreshed.status == 200, "\(refreshed.text)")
                #expect(
                    try await harness.claims(of: try #require(refreshed.string("access_token"))).audience
                        == [Self.orders])
                refreshToken = try #require(refreshed.string("refresh_token"))
            }
            let moved = try await harness.token(
                [("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("resource", Self.payments)],
                client: credentials)
            #expect(moved.error == "invalid_target", "\(moved.text)")
        }
    }
}
