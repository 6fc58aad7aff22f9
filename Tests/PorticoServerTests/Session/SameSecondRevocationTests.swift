import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

/// A removal of an app and a new sign-in in the same second (issue 33): tokens issued before
/// the removal die, tokens of the sign-in after it live, though both carry the same whole
/// second in `iat`.
@Suite struct SameSecondRevocationTests {
    /// Signs `browser` in (when it is not), allows `client` and redeems the code: the access and
    /// refresh tokens.
    private func signInAndRedeem(_ browser: TestBrowser, client: Client) async throws -> (String, String) {
        let pkce = PKCEPair()
        let done = try await sessionFirstAuthorization(
            browser, client: client, pkce: pkce, scope: "openid profile", remember: false)
        let tokens = try await sessionRedeem(
            browser, client: client, code: try #require(done.redirectParameters["code"]), pkce: pkce)
        return (
            try #require(tokens["access_token"]?.stringValue), try #require(tokens["refresh_token"]?.stringValue)
        )
    }

    /// Removes `client` in Your Account of `browser`'s person.
    private func remove(_ client: Client, in browser: TestBrowser) async throws {
        let page = try await browser.get("/account")
        let csrf = try #require(page.hiddenField("csrf_token"))
        let removed = try await browser.post("/account", [("csrf_token", csrf), ("revoke", client.id)])
        #expect(removed.location == "/account?done=removed")
    }

    @Test func aSignInInTheSecondOfARemovalWorksAndTokensBeforeItDie() async throws {
        let clock = TestClock()
        try await ProviderHarness.with(clock: clock) { provider in
            try provider.addUser()
            let client = try provider.addClient()
            clock.hold()
            defer { clock.resume() }

            let first = TestBrowser(base: provider.base)
            let (before, _) = try await signInAndRedeem(first, client: client)
            #expect(try await provider.resource("/oauth/userinfo", token: before).status == 200)
            try await remove(client, in: first)
            // Issued before the removal, in the same second: refused.
            #expect(try await provider.resource("/oauth/userinfo", token: before).status == 401)

            // A new sign-in right after, still in that second: its tokens work, refreshed too.
            let second = TestBrowser(base: provider.base)
            let (after, refreshToken) = try await signInAndRedeem(second, client: client)
            #expect(try await provider.resource("/oauth/userinfo", token: after).status == 200)
            let refreshed = try await provider.refresh(refreshToken, client: .post(id: client.id, secret: "secret"))
            #expect(refreshed.status == 200)
            let renewed = try #require(refreshed.json["access_token"]?.stringValue)
            #expect(try await provider.resource("/oauth/userinfo", token: renewed).status == 200)

            // A second removal in the same second still catches the tokens issued since the first.
            try await remove(client, in: second)
            #expect(try await provider.resource("/oauth/userinfo", token: after).status == 401)
            #expect(try await provider.resource("/oauth/userinfo", token: renewed).status == 401)
            let (third, _) = try await signInAndRedeem(TestBrowser(base: provider.base), client: client)
            #expect(try await provider.resource("/oauth/userinfo", token: third).status == 200)
            #expect(try await provider.resource("/oauth/userinfo", token: before).status == 401)
        }
    }

    @Test func aSignInInTheSecondOfAPasswordResetWorksAndTokensBeforeItDie() async throws {
        let clock = TestClock()
        try await ProviderHarness.with(clock: clock) { provider in
            try provider.addUser()
            let client = try provider.addClient()
            clock.hold()
            defer { clock.resume() }

            let (before, _) = try await signInAndRedeem(TestBrowser(base: provider.base), client: client)
            #expect(try await provider.resource("/oauth/userinfo", token: before).status == 200)
            _ = try await accountForgot(TestBrowser(base: provider.base), email: ProviderHarness.defaultEmail)
            let link = try resetLink(in: try #require(try await provider.outboxMessages(atLeast: 1).last))
            #expect(try await accountReset(TestBrowser(base: provider.base), link: link).status == 200)
            #expect(try await provider.resource("/oauth/userinfo", token: before).status == 401)

            // Signing in with the new password, still in that second.
            let browser = TestBrowser(base: provider.base)
            let pkce = PKCEPair()
            let start = try await browser.get(TestBrowser.authorizePath(client: client, pkce: pkce))
            var done = try await browser.signIn(at: try #require(start.location), password: strongPassword)
            if let next = done.location, next.hasPrefix("/consent") {
                done = try await browser.decide(at: next, "allow")
            }
            let tokens = try await sessionRedeem(
                browser, client: client, code: try #require(done.redirectParameters["code"]), pkce: pkce)
            let after = try #require(tokens["access_token"]?.stringValue)
            #expect(try await provider.resource("/oauth/userinfo", token: after).status == 200)
        }
    }
}
