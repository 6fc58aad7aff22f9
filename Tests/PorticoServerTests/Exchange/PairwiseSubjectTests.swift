import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// Pairwise subject identifiers (OIDC Core §8.1) over real HTTP: every place a client sees who
/// the person is says the same client-specific `sub`.
@Suite("Pairwise subjects") struct PairwiseSubjectTests {
    @Test("a pairwise client sees its own sub everywhere; other sectors and public clients see others")
    func subjectIsPerSector() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let scopes = ["openid", "profile", "email"]
            let shop = try harness.addExchangeClient(
                name: "Shop", group: nil, scopes: scopes, subjectType: .pairwise,
                redirectURI: "https://shop.example/callback", introspection: true)
            let shopToo = try harness.addExchangeClient(
                name: "Shop admin", group: nil, scopes: scopes, subjectType: .pairwise,
                redirectURI: "https://shop.example/admin/callback")
            let news = try harness.addExchangeClient(
                name: "News", group: nil, scopes: scopes, subjectType: .pairwise,
                redirectURI: "https://news.example/callback")
            let plain = try harness.addExchangeClient(name: "Plain", group: nil, scopes: scopes)

            func subjects(of client: Client) async throws -> (String, TestReply) {
                let code = try harness.issueExchangeCode(for: client, user: user, scopes: scopes)
                let reply = try await harness.redeem(code, client: harness.exchangeCredentials(client))
                try #require(reply.status == 200, "\(reply.text)")
                let idToken = try await harness.claims(of: try #require(reply.string("id_token")))
                return (try #require(idToken.subject), reply)
            }
            let (shopSubject, shopReply) = try await subjects(of: shop)
            let (shopTooSubject, _) = try await subjects(of: shopToo)
            let (newsSubject, _) = try await subjects(of: news)
            let (plainSubject, _) = try await subjects(of: plain)
            #expect(plainSubject == user.id)
            #expect(shopSubject != user.id)
            #expect(shopSubject == shopTooSubject)  // one sector
            #expect(newsSubject != shopSubject)
            #expect(!shopSubject.contains(user.id))

            let idToken = try await harness.claims(of: try #require(shopReply.string("id_token")))
            #expect(idToken["user_id"]?.stringValue == shopSubject)
            let access = try #require(shopReply.string("access_token"))
            #expect(try await harness.claims(of: access).subject == shopSubject)
            let userinfo = try await harness.resource("/oauth/userinfo", token: access)
            #expect(userinfo.status == 200, "\(userinfo.text)")
            #expect(userinfo.string("sub") == shopSubject)
            #expect(userinfo.string("email") == user.email)
            let profile = try await harness.resource("/user/profile", token: access)
            #expect(profile.string("user_id") == shopSubject, "\(profile.text)")
            let introspected = try await harness.introspect(access, client: harness.exchangeCredentials(shop))
            #expect(introspected.string("sub") == shopSubject)
            let refresh = try await harness.introspect(
                try #require(shopReply.string("refresh_token")), client: harness.exchangeCredentials(shop))
            #expect(refresh.string("sub") == shopSubject)
            // A refresh keeps it, and so does a narrowed token.
            let refreshed = try await harness.refresh(
                try #require(shopReply.string("refresh_token")), client: harness.exchangeCredentials(shop))
            #expect(try await harness.claims(of: try #require(refreshed.string("id_token"))).subject == shopSubject)
            let narrowed = try await harness.exchange(
                as: shop, subjectToken: access, subjectTokenType: ExchangeURI.accessToken, scope: "openid")
            #expect(narrowed.status == 200, "\(narrowed.text)")
            let narrowedToken = try #require(narrowed.string("access_token"))
            #expect(try await harness.claims(of: narrowedToken).subject == shopSubject)
            #expect(try await harness.resource("/oauth/userinfo", token: narrowedToken).string("sub") == shopSubject)
            // The disabled person's pairwise tokens are refused like any other.
            _ = try UserAdministration.setDisabled(true, reference: user.id, in: harness.store)
            #expect(try await harness.resource("/oauth/userinfo", token: access).status == 401)
        }
    }

    @Test("Native SSO between pairwise apps of one group: each app gets its own sub")
    func nativeSSOAcrossPairwiseApps() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let first = try harness.addExchangeClient(subjectType: .pairwise, sector: "mail.example")
            let second = try harness.addExchangeClient(
                name: "Second", subjectType: .pairwise, sector: "calendar.example")
            let signIn = try await harness.ssoSignIn(user, to: first)
            let firstSubject = try await harness.claims(of: signIn.idToken).subject
            let reply = try await harness.nativeSSO(signIn, as: second)
            #expect(reply.status == 200, "\(reply.text)")
            let secondSubject = try await harness.claims(of: try #require(reply.string("id_token"))).subject
            #expect(secondSubject != firstSubject)
            #expect(secondSubject != user.id)
            let userinfo = try await harness.resource(
                "/oauth/userinfo", token: try #require(reply.string("access_token")))
            #expect(userinfo.string("sub") == secondSubject)
        }
    }
}
