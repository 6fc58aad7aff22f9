import Foundation
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// Changing the password from Your Account (`/account/password`): the current password is
/// required, the policy applies, other browsers are signed out while this one stays, app
/// grants stay, guesses are throttled, and a notice mail goes out. A reset mails one too.
@Suite struct PasswordChangeTests {
    private static let newPassword = "a fresh harbour lantern 42"

    /// A browser signed in as the default person, on Your Account.
    private func signedInBrowser(_ harness: ProviderHarness) async throws -> TestBrowser {
        let browser = harness.browser()
        let first = try await browser.get(PasswordChangeEndpoint.path)
        let login = try #require(first.location)
        #expect(login.hasPrefix("/login?return_to="))
        // (The helper posts no return_to, so the sign-in lands on Your Account.)
        let signedIn = try await browser.signIn(at: login)
        #expect(signedIn.location == "/account")
        return browser
    }

    private func change(
        _ browser: TestBrowser, current: String, new: String, confirmation: String? = nil
    ) async throws -> TestReply {
        let form = try await browser.get(PasswordChangeEndpoint.path)
        #expect(form.status == 200)
        return try await browser.post(
            PasswordChangeEndpoint.path,
            [
                ("csrf_token", try #require(form.hiddenField("csrf_token"))), ("current_password", current),
                ("password", new),
                ("password_confirmation", confirmation ?? new),
            ])
    }

    @Test func theCurrentPasswordIsRequiredAndOtherBrowsersAreSignedOut() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let client = try harness.addConfidentialClient()
            let tokens = try await harness.signIn(user, to: client, scopes: ["openid", "profile"])
            let refreshToken = try #require(tokens.string("refresh_token"))
            let other = try await signedInBrowser(harness)
            let browser = try await signedInBrowser(harness)
            #expect(try harness.store.sessions(userID: user.id).count == 2)

            let page = try await browser.get("/account")
            #expect(page.text.contains("href=\"/account/password\""))

            let wrong = try await change(browser, current: "not my password", new: Self.newPassword)
            #expect(wrong.status == 400)
            #expect(wrong.text.contains("That is not your current password."))
            let weak = try await change(browser, current: ProviderHarness.defaultPassword, new: "short")
            #expect(weak.status == 400)
            let mismatch = try await change(
                browser, current: ProviderHarness.defaultPassword, new: Self.newPassword, confirmation: "other one")
            #expect(mismatch.status == 400)
            let forged = try await browser.post(
                PasswordChangeEndpoint.path,
                [
                    ("csrf_token", "forged"), ("current_password", ProviderHarness.defaultPassword),
                    ("password", Self.newPassword), ("password_confirmation", Self.newPassword),
                ])
            #expect(forged.status == 403)
            let unchanged = try #require(try harness.store.user(id: user.id))
            #expect(unchanged.passwordHash == user.passwordHash)

            let done = try await change(browser, current: ProviderHarness.defaultPassword, new: Self.newPassword)
            #expect(done.status == 303)
            #expect(done.location == "/account?done=password_changed")
            let changed = try #require(try harness.store.user(id: user.id))
            #expect(
                PasswordHasher(settings: ProviderHarness.passwordHashing).verify(
                    Self.newPassword, against: changed.passwordHash))

            // This browser stays signed in; the other one is out; the app's grant stays.
            let after = try await browser.get("/account?done=password_changed")
            #expect(after.status == 200)
            #expect(after.text.contains("Your password has been changed"))
            #expect(try await other.get("/account").status == 302)
            #expect(try harness.store.sessions(userID: user.id).count == 1)
            #expect(try await harness.refresh(refreshToken, client: .of(client)).status == 200)

            let mail = try #require(try await harness.outboxMessages(atLeast: 1).first)
            #expect(mail.contains("To: \(user.email)\r\n"))
            #expect(mail.contains("Subject: Your Portico password was changed\r\n"))
            #expect(mail.contains("was changed while you were signed in"))
            let events = try harness.store.read { try $0.recentAuditEvents(limit: 10) }
            #expect(events.contains { $0.action == "user.password_change" })
        }
    }

    @Test func wrongCurrentPasswordsAreThrottled() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let browser = try await signedInBrowser(harness)
            for _ in 0..<5 {
                #expect(try await change(browser, current: "guess", new: Self.newPassword).status == 400)
            }
            let refused = try await change(browser, current: ProviderHarness.defaultPassword, new: Self.newPassword)
            #expect(refused.status == 429)
            #expect(refused.header("Retry-After") != nil)
            #expect(try harness.store.user(id: user.id)?.passwordHash == user.passwordHash)
            harness.clock.advance(by: 61)
            let allowed = try await change(browser, current: ProviderHarness.defaultPassword, new: Self.newPassword)
            #expect(allowed.status == 303)
        }
    }

    @Test func theChangePageIsInChineseToo() async throws {
        try await ProviderHarness.with { harness in
            try harness.addUser()
            let browser = try await signedInBrowser(harness)
            let page = try await browser.get(PasswordChangeEndpoint.path + "?ui_locales=zh-CN")
            #expect(page.text.contains("更改密码"))
            #expect(page.text.contains("当前密码"))
            #expect(page.text.contains("autocomplete=\"current-password\""))
        }
    }
}
