import Foundation
import PorticoCrypto
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// When a grant is found compromised — a replayed code, a reused refresh token, a password
/// reset — the access tokens minted by refreshing stop working at once, not an hour later.
@Suite struct CompromiseRevocationTests {
    @Test func aReusedRefreshTokenRevokesTheAccessTokensItsFamilyMinted() async throws {
        let clock = TestClock()
        try await ProviderHarness.with(clock: clock) { harness in
            let user = try harness.addUser()
            let client = try harness.addConfidentialClient(introspection: true)
            let credentials = ClientCredentials.of(client)
            let first = try await harness.signIn(user, to: client, scopes: ["openid", "profile"])
            let original = try #require(first.string("refresh_token"))
            let rotated = try await harness.refresh(original, client: credentials)
            let minted = try #require(rotated.string("access_token"))
            #expect(try await harness.resource("/oauth/userinfo", token: minted).status == 200)

            clock.advance(by: 31)
            #expect(try await harness.refresh(original, client: credentials).string("error") == "invalid_grant")
            #expect(try await harness.resource("/oauth/userinfo", token: minted).status == 401)
            #expect(try await harness.introspect(minted, client: credentials).json["active"] == false)
        }
    }

    @Test func aReplayedCodeRevokesTheAccessTokensItsRefreshesMinted() async throws {
        let clock = TestClock()
        try await ProviderHarness.with(clock: clock) { harness in
            let user = try harness.addUser()
            let client = try harness.addConfidentialClient(introspection: true)
            let credentials = ClientCredentials.of(client)
            let code = try harness.issueCode(for: client, user: user, scopes: ["openid", "profile"])
            let first = try await harness.redeem(code, client: credentials)
            let refreshed = try await harness.refresh(try #require(first.string("refresh_token")), client: credentials)
            let minted = try #require(refreshed.string("access_token"))
            #expect(try await harness.resource("/oauth/userinfo", token: minted).status == 200)

            clock.advance(by: 2)
            #expect(try await harness.redeem(code, client: credentials).string("error") == "invalid_grant")
            #expect(try await harness.resource("/oauth/userinfo", token: minted).status == 401)
        }
    }

    @Test func aPasswordResetRevokesEveryAppsAccessTokens() async throws {
        try await ProviderHarness.with { harness in
            try harness.addUser()
            let shop = try harness.addLogoutClient(name: "Shop")
            let browser = TestBrowser(base: harness.base)
            let pkce = PKCEPair()
            let allowed = try await browser.authorizeWithConsent(client: shop, pkce: pkce)
            let code = try #require(allowed.redirectParameters["code"])
            let tokens = try await sessionRedeem(browser, client: shop, code: code, pkce: pkce)
            let refreshToken = try #require(tokens["refresh_token"]?.stringValue)
            let refreshed = try await browser.post(
                "/oauth/token",
                [
                    ("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", shop.id),
                    ("client_secret", "secret"),
                ])
            let minted = try #require(
                JSONValue(parsing: Array(refreshed.text.utf8))?.objectValue?["access_token"]?.stringValue)
            #expect(try await userinfoStatus(harness, minted) == 200)

            _ = try await accountForgot(browser, email: "ann@example.com")
            let link = try resetLink(in: try #require(try await harness.outboxMessages(atLeast: 1).first))
            #expect(try await accountReset(browser, link: link).status == 200)
            #expect(try await userinfoStatus(harness, minted) == 401)
        }
    }

    private func userinfoStatus(_ harness: ProviderHarness, _ token: String) async throws -> Int {
        var request = URLRequest(url: try #require(URL(string: harness.base + "/oauth/userinfo")))
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }
}
