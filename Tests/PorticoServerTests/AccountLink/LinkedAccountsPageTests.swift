import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// The pages of the account link over real HTTP: the `account_link` consent line, Linked
/// accounts in Your Account, and Unlink with its confirmation, in both languages.
@Suite("Account link pages") struct LinkedAccountsPageTests {
    /// A host with two mini-programs (one disabled later), and a browser signed in.
    private func hostAndBrowser(_ harness: ProviderHarness, language: String? = nil) async throws -> (
        Client, TestBrowser, UserRecord
    ) {
        let user = try harness.addUser()
        let host = try harness.addHost(name: "Harbour Mall")
        _ = try harness.addMiniProgram(of: host, name: "Ticket Booth")
        _ = try harness.addMiniProgram(of: host, name: "Noodle <Bar>")
        let browser = harness.browser(acceptLanguage: language)
        return (host, browser, user)
    }

    @Test(
        "the consent page says the person links their account and names the mini-programs",
        arguments: [
            (
                nil as String?, "Link your account at Harbour Mall to your Portico account, and let its mini-programs",
                ", "
            ),
            ("zh-CN", "将您在 Harbour Mall 的账户与您的 Portico 账户关联，并允许其小程序", "、"),
        ])
    func consentLine(language: String?, words: String, separator: String) async throws {
        try await ProviderHarness.with { harness in
            let (host, browser, _) = try await hostAndBrowser(harness, language: language)
            let start = try await browser.get(TestBrowser.authorizePath(client: host, scope: "openid account_link"))
            let login = try await browser.signIn(at: try #require(start.location))
            let consent = try await browser.get(try #require(login.location))
            #expect(consent.status == 200)
            #expect(consent.text.contains(words), "\(consent.text)")
            // Both mini-programs, named (escaped), in one list.
            let named = ["Ticket Booth", "Noodle &lt;Bar&gt;"]
            #expect(
                consent.text.contains(named.joined(separator: separator))
                    || consent.text.contains(named.reversed().joined(separator: separator)))
            #expect(!consent.text.contains("Noodle <Bar>"))
        }
    }

    @Test("a public client cannot be asked account_link")
    func publicClientRefused() async throws {
        try await ProviderHarness.with { harness in
            let app = try harness.addClient(
                name: "Public", type: .public, redirectURIs: ["http://127.0.0.1/callback"],
                scopes: ["openid", "account_link"])
            let start = try await harness.browser().get(
                TestBrowser.authorizePath(client: app, scope: "openid account_link"))
            let location = try #require(start.location)
            #expect(location.hasPrefix("http://127.0.0.1/callback"))
            #expect(start.redirectParameters["error"] == "invalid_scope")
        }
    }

    @Test(
        "Your Account lists the link with its mini-programs; Unlink asks, then unbinds",
        arguments: [
            nil as String?, "zh-CN",
        ])
    func linkedAccountsAndUnlink(language: String?) async throws {
        try await ProviderHarness.with { harness in
            let (host, browser, user) = try await hostAndBrowser(harness, language: language)
            let signedIn = try await harness.hostSignIn(user, to: host)
            let linkID = try #require(try await harness.link(signedIn, hostUserID: "mc-1").string("link_id"))
            let login = try await browser.get("/account")
            _ = try await browser.signIn(at: try #require(login.location))
            let page = try await browser.get("/account")
            #expect(page.status == 200)
            let heading = language == nil ? "Linked accounts" : "已关联的账户"
            #expect(page.text.contains(heading))
            #expect(page.text.contains("Harbour Mall"))
            #expect(page.text.contains("Ticket Booth"))
            #expect(page.text.contains("Noodle &lt;Bar&gt;"))
            #expect(page.text.contains(language == nil ? "Linked since" : "关联于"))
            #expect(page.text.contains("/account/unlink?link_id=\(linkID)"))

            let confirm = try await browser.get("/account/unlink?link_id=\(linkID)")
            #expect(confirm.status == 200)
            #expect(
                confirm.text.contains(
                    language == nil ? "Unlink your account at Harbour Mall?" : "解除您在 Harbour Mall 的账户关联？"))
            let csrf = try #require(confirm.hiddenField("csrf_token"))
            // Nothing happened yet.
            #expect(try harness.store.accountLink(id: linkID) != nil)

            let forged = try await browser.post("/account/unlink", [("csrf_token", "nope"), ("unlink", linkID)])
            #expect(forged.status == 403)
            // The same cookies and token, posted from another origin.
            let cookies = [SignInSession.cookieName, CSRFProtection.cookieName].compactMap { name in
                browser.cookie(name).map { "\(name)=\($0)" }
            }
            let crossSite = try await harness.request(
                "POST", "/account/unlink", form: [("csrf_token", csrf), ("unlink", linkID)],
                headers: ["Origin": "http://evil.example", "Cookie": cookies.joined(separator: "; ")])
            #expect(crossSite.status == 403)
            #expect(try harness.store.accountLink(id: linkID) != nil)

            let done = try await browser.post("/account/unlink", [("csrf_token", csrf), ("unlink", linkID)])
            #expect(done.status == 303)
            #expect(done.location == "/account?done=unlinked")
            #expect(try harness.store.accountLink(id: linkID) == nil)
            #expect(try await harness.resource("/user/profile", token: signedIn.accessToken).status == 401)
            let after = try await browser.get("/account?done=unlinked")
            #expect(after.text.contains(language == nil ? "The account was unlinked." : "已解除账户关联"))
            #expect(!after.text.contains("id=\"linked-accounts\""))
            let events = try harness.store.recentAuditEvents(limit: 3)
            #expect(events.contains { $0.action == "account_link.unbind" && $0.actor == user.id })
        }
    }

    @Test("someone else's link id is refused on both pages")
    func othersLinks() async throws {
        try await ProviderHarness.with { harness in
            let (host, browser, _) = try await hostAndBrowser(harness)
            let bob = try harness.addUser(email: "bob@example.com", name: "Bob")
            let bobs = try await harness.hostSignIn(bob, to: host)
            let linkID = try #require(try await harness.link(bobs, hostUserID: "mc-2").string("link_id"))
            let login = try await browser.get("/account")
            _ = try await browser.signIn(at: try #require(login.location))
            #expect(try await browser.get("/account/unlink?link_id=\(linkID)").status == 400)
            let page = try await browser.get("/account")
            let csrf = try #require(page.hiddenField("csrf_token"))
            #expect(
                try await browser.post("/account/unlink", [("csrf_token", csrf), ("unlink", linkID)]).status == 400)
            #expect(try harness.store.accountLink(id: linkID) != nil)
        }
    }
}
