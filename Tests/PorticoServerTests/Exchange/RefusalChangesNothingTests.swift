import Foundation
import PorticoStore
import PorticoTesting
import Testing

/// A request refused after the grant's own checks passed changes nothing (DESIGN, "Issuing
/// tokens: one decision, then one commit"): what the client presented works afterwards, also
/// once the refresh grace has passed, so a refused retry is never taken for a replay.
///
/// Each refusal here comes from an issuance step (the audience), which runs inside the grant's
/// transaction; before the pipeline it ran after the grant had committed.
@Suite struct RefusalChangesNothingTests {
    static let orders = "https://orders.example/api"
    static let payments = "https://payments.example/api"
    static let foreign = "https://elsewhere.example/api"

    /// A client allowed both resources, and a code of a new person's bound to `orders`.
    static func codeBoundToOrders(_ harness: ProviderHarness) throws -> (ClientCredentials, ExchangeCode) {
        let user = try harness.addUser()
        let client = try harness.addExchangeClient(
            group: nil, scopes: ["openid", "profile"], resources: [orders, payments])
        let code = try harness.issueExchangeCode(for: client, user: user, scopes: ["openid"], resource: orders)
        return (harness.exchangeCredentials(client), code)
    }

    @Test(
        "a refresh refused with invalid_target leaves the refresh token current, also past the grace",
        arguments: [payments, foreign])
    func refusedRefreshKeepsTheToken(resource: String) async throws {
        try await ProviderHarness.with { harness in
            let (credentials, code) = try Self.codeBoundToOrders(harness)
            let redeemed = try await harness.redeem(code, client: credentials)
            let refreshToken = try #require(redeemed.string("refresh_token"), "\(redeemed.text)")

            let refused = try await harness.token(
                [("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("resource", resource)],
                client: credentials)
            #expect(refused.error == "invalid_target", "\(refused.text)")
            // Past the retry grace a rotated token would count as reused and revoke the family.
            harness.clock.advance(by: harness.configuration.lifetimes.refreshReuseGrace + 5)
            let retried = try await harness.refresh(refreshToken, client: credentials)
            #expect(retried.status == 200, "\(retried.text)")
            #expect(retried.string("refresh_token") != nil)
        }
    }

    @Test("a code redemption refused with invalid_target leaves the code redeemable", arguments: [payments, foreign])
    func refusedRedemptionKeepsTheCode(resource: String) async throws {
        try await ProviderHarness.with { harness in
            let (credentials, code) = try Self.codeBoundToOrders(harness)
            let refused = try await harness.token(
                [
                    ("grant_type", "authorization_code"), ("code", code.code), ("redirect_uri", code.redirectURI),
                    ("code_verifier", code.verifier), ("resource", resource),
                ], client: credentials)
            #expect(refused.error == "invalid_target", "\(refused.text)")
            let redeemed = try await harness.redeem(code, client: credentials)
            #expect(redeemed.status == 200, "\(redeemed.text)")
            #expect(
                try await harness.claims(of: try #require(redeemed.string("access_token"))).audience == [Self.orders])
            // The refused attempt issued nothing: the one refresh family is the one just redeemed,
            // and it still works.
            let refreshed = try await harness.refresh(
                try #require(redeemed.string("refresh_token")), client: credentials)
            #expect(refreshed.status == 200, "\(refreshed.text)")
        }
    }

    @Test("a Native SSO exchange refused with invalid_target records no consent, family or audit event")
    func refusedNativeSSOChangesNothing() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let first = try harness.addExchangeClient(name: "Mail")
            let second = try harness.addExchangeClient(name: "Calendar")
            let signIn = try await harness.ssoSignIn(user, to: first)
            let auditBefore = try harness.store.read { try $0.recentAuditEvents(limit: 1000) }.count

            let refused = try await harness.exchange(
                as: second, subjectToken: signIn.idToken, subjectTokenType: ExchangeURI.idToken,
                actorToken: signIn.deviceSecret, actorTokenType: ExchangeURI.deviceSecret, audience: harness.issuer,
                resource: Self.foreign)
            #expect(refused.error == "invalid_target", "\(refused.text)")
            #expect(try harness.store.consent(userID: user.id, clientID: second.id) == nil)
            #expect(try harness.store.read { try $0.recentAuditEvents(limit: 1000) }.count == auditBefore)

            let exchanged = try await harness.nativeSSO(signIn, as: second)
            #expect(exchanged.status == 200, "\(exchanged.text)")
        }
    }

    @Test("a pairwise client's refused redemption records no subject for it")
    func refusedPairwiseRedemptionRecordsNothing() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let client = try harness.addExchangeClient(
                group: nil, scopes: ["openid", "profile"], resources: [Self.orders], subjectType: .pairwise,
                sector: "shop.example")
            let credentials = harness.exchangeCredentials(client)
            let code = try harness.issueExchangeCode(for: client, user: user, scopes: ["openid"])
            let refused = try await harness.token(
                [
                    ("grant_type", "authorization_code"), ("code", code.code), ("redirect_uri", code.redirectURI),
                    ("code_verifier", code.verifier), ("resource", Self.foreign),
                ], client: credentials)
            #expect(refused.error == "invalid_target", "\(refused.text)")
            let redeemed = try await harness.redeem(code, client: credentials)
            #expect(redeemed.status == 200, "\(redeemed.text)")
            let subject = try await harness.claims(of: try #require(redeemed.string("access_token"))).subject
            #expect(subject != user.id)
            // The subject was recorded in the redemption's own transaction, so the profile finds the person.
            let profile = try await harness.request(
                "GET", "/oauth/userinfo",
                headers: ["Authorization": "Bearer \(try #require(redeemed.string("access_token")))"])
            #expect(profile.status == 200, "\(profile.text)")
            #expect(profile.string("sub") == subject)
        }
    }
}
