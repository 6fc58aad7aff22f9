import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// The mailed sign-up link: it creates the account once, only by its button, only while it
/// lives, never a second account for an address; and `email_verified` tells the truth.
@Suite struct SignupVerificationTests {
    private static let fields = [("name", "Gil Example"), ("email", "gil@example.com"), ("password", strongPassword)]

    @Test func openingTheLinkCreatesNothingAndTheButtonCreatesTheAccountOnce() async throws {
        try await ProviderHarness.with { provider in
            let browser = TestBrowser(base: provider.base)
            _ = try await accountSignUp(browser, Self.fields)
            let link = try signupLink(in: try await mail(to: "gil@example.com", in: provider))

            // A mail scanner's GET (and HEAD) shows the question, and changes nothing.
            let scanned = try await TestBrowser(base: provider.base).get(link)
            #expect(scanned.status == 200)
            #expect(scanned.text.contains("Finish creating your account"))
            #expect(scanned.text.contains("gil@example.com"))
            #expect(try await provider.request("HEAD", link).status == 405)
            #expect(try await TestBrowser(base: provider.base).get(link).status == 200)
            #expect(try provider.store.users().isEmpty)

            let form = try await browser.get(link)
            let token = try #require(form.hiddenField("token"))
            let created = try await Self.postConfirmation(browser, token: token, csrfFrom: form)
            #expect(created.status == 200)
            #expect(created.text.contains(#"id="account-ready""#))
            #expect(created.header("Set-Login") == "logged-in")
            #expect(try provider.store.users().count == 1)

            // The link worked once: opening it again, or posting its form again, is refused.
            let again = try await browser.get(link)
            #expect(again.status == 400)
            #expect(again.text.contains(#"id="signup-link-dead""#))
            #expect(again.text.contains(#"href="/signup""#))
            let session = browser.cookie("portico_session")
            let reposted = try await Self.postConfirmation(browser, token: token, csrfFrom: form)
            #expect(reposted.status == 400)
            #expect(reposted.text.contains(#"id="signup-link-dead""#))
            #expect(browser.cookie("portico_session") == session)
            #expect(try provider.store.users().count == 1)
        }
    }

    @Test func anExpiredLinkIsRefusedAndMakesNoAccount() async throws {
        try await ProviderHarness.with { provider in
            let browser = TestBrowser(base: provider.base)
            _ = try await accountSignUp(browser, Self.fields)
            let link = try signupLink(in: try await mail(to: "gil@example.com", in: provider))
            let form = try await browser.get(link)
            #expect(form.status == 200)
            provider.clock.advance(by: SignupVerifyEndpoint.linkLifetime)
            let dead = try await browser.get(link)
            #expect(dead.status == 400)
            #expect(dead.text.contains("This link no longer works"))
            let token = try #require(form.hiddenField("token"))
            let posted = try await Self.postConfirmation(browser, token: token, csrfFrom: form)
            #expect(posted.status == 400)
            #expect(posted.text.contains(#"id="signup-link-dead""#))
            #expect(try provider.store.users().isEmpty)
            #expect(browser.cookie("portico_session") == nil)
        }
    }

    @Test func unknownAndMalformedTokensGetTheSamePage() async throws {
        try await ProviderHarness.with { provider in
            for path in [
                "/signup/verify", "/signup/verify?token=", "/signup/verify?token=\(SecureRandom.token())",
                "/signup/verify?token=\(String(repeating: "a", count: 5000))", "/signup/verify?token=a%0Ab",
            ] {
                let reply = try await TestBrowser(base: provider.base).get(path)
                #expect(reply.status == 400, "\(path.prefix(60))")
                #expect(reply.text.contains(#"id="signup-link-dead""#))
            }
            #expect(try await TestBrowser(base: provider.base).get("/signup/verify?token=%00%ff").status == 400)
        }
    }

    @Test func aNewerSignUpForTheAddressReplacesTheOlderLink() async throws {
        try await ProviderHarness.with { provider in
            _ = try await accountSignUp(TestBrowser(base: provider.base), Self.fields)
            let first = try signupLink(in: try await mail(to: "gil@example.com", in: provider))
            _ = try await accountSignUp(
                TestBrowser(base: provider.base),
                [("name", "Gil Second"), ("email", "GIL@example.com"), ("password", strongPassword)])
            let second = try signupLink(in: try await mail(to: "GIL@example.com", in: provider, atLeast: 2))
            #expect(first != second)
            #expect(try await TestBrowser(base: provider.base).get(first).status == 400)
            let created = try await accountConfirm(TestBrowser(base: provider.base), link: second)
            #expect(created.status == 200)
            #expect(try provider.store.users().map(\.name) == ["Gil Second"])
        }
    }

    @Test func anAddressTakenMeanwhileGetsNoSecondAccount() async throws {
        try await ProviderHarness.with { provider in
            let browser = TestBrowser(base: provider.base)
            _ = try await accountSignUp(browser, Self.fields)
            let link = try signupLink(in: try await mail(to: "gil@example.com", in: provider))
            let form = try await browser.get(link)
            let meanwhile = try provider.addUser(email: "Gil@Example.com", name: "Gil Admin-Made")
            let token = try #require(form.hiddenField("token"))
            let reply = try await Self.postConfirmation(browser, token: token, csrfFrom: form)
            #expect(reply.status == 409)
            #expect(reply.text.contains(#"id="signup-address-taken""#))
            #expect(reply.text.contains(#"href="/login""#))
            #expect(try provider.store.users().map(\.id) == [meanwhile.id])
            #expect(browser.cookie("portico_session") == nil)
            #expect(try await browser.get(link).status == 400)  // used up
        }
    }

    @Test func emailVerifiedIsFalseUntilTheAddressIsProvedByAResetLink() async throws {
        try await ProviderHarness.with { provider in
            let user = try provider.addUser()
            let client = try provider.addConfidentialClient()
            func claims() async throws -> (JSONValue?, JSONValue?) {
                let reply = try await provider.signIn(user, to: client, scopes: ["openid", "email"])
                let identity = try (try await provider.jwksVerifier()).verify(
                    try #require(reply.string("id_token")), algorithms: [.rs256])
                let userinfo = try await provider.resource(
                    "/oauth/userinfo", token: try #require(reply.string("access_token")))
                return (try identity.claims()["email_verified"], userinfo.json["email_verified"])
            }
            let before = try await claims()
            #expect(before.0 == false)
            #expect(before.1 == false)

            let browser = TestBrowser(base: provider.base)
            _ = try await accountForgot(browser, email: user.email)
            let link = try resetLink(in: try await mail(to: user.email, in: provider))
            #expect(try await accountReset(browser, link: link).status == 200)
            #expect(try provider.store.user(id: user.id)?.isEmailVerified == true)
            // The reset revoked the access tokens issued up to its second; sign in after it.
            provider.clock.advance(by: 1)
            let after = try await claims()
            #expect(after.0 == true)
            #expect(after.1 == true)
        }
    }

    @Test func theMailAndThePagesFollowThePageLanguage() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let client = try provider.addClient(name: "Photo Printer")
            let browser = TestBrowser(base: provider.base)
            let start = try await browser.get(
                TestBrowser.authorizePath(client: client, extra: [("ui_locales", "zh-Hans")]))
            let login = try await browser.get(try #require(start.location))
            let range = try #require(
                login.text.range(of: #"href="/signup\?request=[^"]+""#, options: .regularExpression))
            let path = String(login.text[range].dropFirst(6).dropLast())
            let sent = try await accountSignUp(
                browser, at: path, [("name", "韩梅梅"), ("email", "han@example.com"), ("password", strongPassword)])
            #expect(sent.text.contains("请查收电子邮件"))
            let taken = try await accountSignUp(
                TestBrowser(base: provider.base), at: path,
                [("name", "韩梅梅"), ("email", "ann@example.com"), ("password", strongPassword)])
            #expect(taken.text.contains("请查收电子邮件"))

            let message = try await mail(to: "han@example.com", in: provider, atLeast: 2)
            #expect(message.contains("Subject: 完成创建您的 Portico 账户"))
            let notice = try await mail(to: "ann@example.com", in: provider, atLeast: 2)
            #expect(notice.contains("Subject: 有人尝试用您的地址创建 Portico 账户"))
            let link = try signupLink(in: message)
            #expect(link.contains("ui_locales=zh-Hans"))
            let form = try await browser.get(link)
            #expect(form.text.contains("完成创建账户"))
            let created = try await accountConfirm(browser, link: link)
            #expect(created.status == 303)
            #expect(try #require(created.location).hasPrefix("/consent?request="))
        }
    }

    /// Posts the confirmation form for `token` with the CSRF token of `page` (and its cookie, if
    /// `browser` has it).
    private static func postConfirmation(_ browser: TestBrowser, token: String, csrfFrom page: TestReply)
        async throws -> TestReply
    {
        try await browser.post(
            "/signup/verify", [("csrf_token", try #require(page.hiddenField("csrf_token"))), ("token", token)])
    }
}
