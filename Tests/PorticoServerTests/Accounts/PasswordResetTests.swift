import Foundation
import PorticoCrypto
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

/// "Forgot your password?": the same answer for everyone, a mailed single-use link that
/// expires after 30 minutes, and a reset that signs the person out everywhere.
@Suite struct PasswordResetTests {
    @Test func knownAndUnknownAddressesGetTheSameAnswerAndOnlyAnAccountGetsMail() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let browser = TestBrowser(base: provider.base)
            let known = try await accountForgot(browser, email: "ann@example.com")
            let unknown = try await accountForgot(browser, email: "nobody@example.com")
            for reply in [known, unknown] {
                #expect(reply.status == 200)
                #expect(reply.text.contains("Check your email"))
            }
            #expect(
                known.text.replacingOccurrences(of: "ann@example.com", with: "X")
                    == unknown.text.replacingOccurrences(of: "nobody@example.com", with: "X"))

            let messages = try await provider.outboxMessages(atLeast: 1)
            try await Task.sleep(for: .milliseconds(200))
            #expect(provider.outboxCount == 1)
            let mail = try #require(messages.first)
            #expect(mail.contains("To: ann@example.com\r\n"))
            #expect(mail.contains("Subject: Reset your Portico password\r\n"))
            #expect(mail.contains("\r\nDate: "))
            #expect(mail.contains("\r\n\r\nHello Ann Example,"))
            let link = try resetLink(in: mail)
            #expect(link.hasPrefix("/password/reset?token="))
            let token = String(link.dropFirst("/password/reset?token=".count))
            #expect(token.count == 43)  // 256 bits, base64url
            // Only the token's SHA-256 is stored.
            let reset = try #require(try provider.store.read { try $0.passwordReset(token: token) })
            #expect(reset.hashedToken != token)
            #expect(reset.expiresAt.timeIntervalSince(reset.createdAt) == 1800)
        }
    }

    @Test func aResetChangesThePasswordOnceEndsSessionsAndRevokesRefreshTokens() async throws {
        try await ProviderHarness.with { provider in
            let ann = try provider.addUser()
            let client = try provider.addClient()
            // A signed-in browser with refresh tokens for an app.
            let thief = TestBrowser(base: provider.base)
            let pkce = PKCEPair()
            let allowed = try await thief.authorizeWithConsent(client: client, pkce: pkce, scope: "openid profile")
            let code = try #require(allowed.redirectParameters["code"])
            let (status, tokens) = try await accountRedeem(thief, code: code, client: client, verifier: pkce.verifier)
            #expect(status == 200)
            let refresh = try #require(tokens["refresh_token"]?.stringValue)

            // Ann asks for a link from the sign-in page of a new authorization.
            let owner = TestBrowser(base: provider.base)
            let start = try await owner.get(TestBrowser.authorizePath(client: client))
            let login = try await owner.get(try #require(start.location))
            let range = try #require(
                login.text.range(of: #"href="/password/forgot\?request=[^"]+""#, options: .regularExpression))
            let forgotPath = String(login.text[range].dropFirst(6).dropLast())
            _ = try await accountForgot(owner, at: forgotPath, email: "ann@example.com")
            let link = try resetLink(in: try #require(try await provider.outboxMessages(atLeast: 1).first))
            #expect(link.contains("&request="))

            let form = try await owner.get(link)
            #expect(form.text.contains("Choose a new password"))
            #expect(form.text.contains(#"autocomplete="new-password""#))
            let mismatch = try await accountReset(owner, link: link, confirmation: strongPassword + "!")
            #expect(mismatch.text.contains("The two passwords are not the same."))
            let common = try await accountReset(owner, link: link, password: "123456789987654321")
            #expect(common.text.contains("too common"))

            let done = try await accountReset(owner, link: link)
            #expect(done.status == 200)
            #expect(done.text.contains("Your password has been changed"))
            #expect(done.text.contains(#"href="/login?request="#))

            // The link works once.
            let again = try await owner.get(link)
            #expect(again.status == 400)
            #expect(again.text.contains("This link no longer works"))
            // Every session ended, every refresh family revoked.
            #expect(try provider.store.read { try $0.sessions(userID: ann.id) }.isEmpty)
            let (refused, error) = try await accountRefresh(thief, token: refresh, client: client)
            #expect(refused == 400)
            #expect(error["error"]?.stringValue == "invalid_grant")
            let back = try await thief.get(TestBrowser.authorizePath(client: client))
            #expect(back.location?.hasPrefix("/login?") == true)
            // The old password is gone, the new one works.
            let old = try await owner.signIn(at: "/login")
            #expect(old.text.contains("Your email or password is incorrect"))
            let new = try await owner.signIn(at: "/login", password: strongPassword)
            #expect(new.status == 303)
            let events = try provider.store.read { try $0.recentAuditEvents(limit: 10) }
            let event = try #require(events.first { $0.action == "user.password_reset" })
            #expect(event.subject == ann.id)
            #expect(event.details.contains(#""refresh_families_revoked":1"#))
            // A notice tells Ann, in case it was not her.
            let mails = try await provider.outboxMessages(atLeast: 2)
            let notice = try #require(mails.first { $0.contains("Subject: Your Portico password was changed") })
            #expect(notice.contains("To: ann@example.com\r\n"))
            #expect(notice.contains("was reset with a link we e-mailed you"))
        }
    }

    @Test func aLinkExpiresAfterThirtyMinutes() async throws {
        let clock = TestClock()
        try await ProviderHarness.with(clock: clock) { provider in
            try provider.addUser()
            let browser = TestBrowser(base: provider.base)
            _ = try await accountForgot(browser, email: "ann@example.com")
            let link = try resetLink(in: try #require(try await provider.outboxMessages(atLeast: 1).first))
            clock.advance(by: 29 * 60)
            let form = try await browser.get(link)
            #expect(form.status == 200)
            let token = try #require(form.hiddenField("token"))
            let csrf = try #require(form.hiddenField("csrf_token"))
            clock.advance(by: 61)
            #expect(try await browser.get(link).status == 400)
            let late = try await browser.post(
                "/password/reset",
                [
                    ("csrf_token", csrf), ("token", token), ("password", strongPassword),
                    ("password_confirmation", strongPassword),
                ])
            #expect(late.status == 400)
            #expect(late.text.contains("This link no longer works"))
            let ann = try #require(try provider.store.user(email: "ann@example.com"))
            #expect(
                PasswordHasher(settings: ProviderHarness.passwordHashing).verify(
                    "correct horse", against: ann.passwordHash))
        }
    }

    @Test func unknownOrMalformedTokensGetTheSamePage() async throws {
        try await ProviderHarness.with { provider in
            let browser = TestBrowser(base: provider.base)
            for path in [
                "/password/reset", "/password/reset?token=abc", "/password/reset?token=\(SecureRandom.token())",
            ] {
                let reply = try await browser.get(path)
                #expect(reply.status == 400)
                #expect(reply.text.contains("This link no longer works"))
            }
        }
    }

    @Test func askingForLinksIsLimitedPerAddress() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let browser = TestBrowser(base: provider.base)
            for attempt in 1...5 {
                let reply = try await accountForgot(browser, email: "someone\(attempt)@example.com")
                #expect(reply.status == 200)
            }
            let refused = try await accountForgot(browser, email: "ann@example.com")
            #expect(refused.status == 429)
            #expect(refused.text.contains("Too many attempts. Try again in 15 minutes."))
            #expect(refused.header("Retry-After") != nil)
            try await Task.sleep(for: .milliseconds(200))
            #expect(provider.outboxCount == 0)
        }
    }

    @Test func formsWithoutTheirCSRFTokenAreRefused() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let browser = TestBrowser(base: provider.base)
            _ = try await browser.get("/password/forgot")
            let forged = try await browser.post("/password/forgot", [("email", "ann@example.com")])
            #expect(forged.status == 403)
            _ = try await accountForgot(browser, email: "ann@example.com")
            let link = try resetLink(in: try #require(try await provider.outboxMessages(atLeast: 1).first))
            let form = try await browser.get(link)
            let token = try #require(form.hiddenField("token"))
            let other = TestBrowser(base: provider.base)
            _ = try await other.get("/password/forgot")
            let crossSite = try await other.post(
                "/password/reset",
                [
                    ("csrf_token", try #require(form.hiddenField("csrf_token"))), ("token", token),
                    ("password", strongPassword), ("password_confirmation", strongPassword),
                ])
            #expect(crossSite.status == 403)
            #expect(try await browser.get(link).status == 200)  // still unused
        }
    }
}
