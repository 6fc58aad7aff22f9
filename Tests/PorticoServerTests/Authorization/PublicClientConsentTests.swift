import Foundation
import PorticoStore
import PorticoTesting
import Testing

/// A public app's remembered consent is replayed only after a click (RFC 8252 §8.6): any local
/// program can claim a loopback port and open the authorize URL with its own PKCE pair, so a
/// silent code would go to whoever asked. Confidential apps keep the silent path.
@Suite struct PublicClientConsentTests {
    private func publicClient(_ harness: ProviderHarness) throws -> Client {
        try harness.addClient(type: .public, redirectURIs: ["http://127.0.0.1/callback"])
    }

    @Test func aPublicAppAllowedBeforeGetsAOneClickPageNotASilentCode() async throws {
        try await ProviderHarness.with { harness in
            try harness.addUser()
            let client = try publicClient(harness)
            let browser = TestBrowser(base: harness.base)
            let first = try await browser.authorizeWithConsent(client: client)
            #expect(first.redirectParameters["code"] != nil)

            let again = try await browser.get(TestBrowser.authorizePath(client: client))
            let location = try #require(again.location)
            #expect(location.hasPrefix("/continue?"), "\(location)")
            #expect(again.redirectParameters["code"] == nil)
            let page = try await browser.get(location)
            #expect(page.status == 200)
            #expect(page.text.contains("Continue to Example App as Ann Example"))
            #expect(page.text.contains("You allowed this app before."))
            #expect(!page.text.contains("This device kept you signed in."))
            let pressed = try await browser.post(
                "/continue",
                [
                    ("csrf_token", try #require(page.hiddenField("csrf_token"))),
                    ("request", try #require(page.hiddenField("request"))), ("decision", "continue"),
                ])
            #expect(pressed.status == 303)
            #expect(pressed.location?.hasPrefix("http://127.0.0.1/callback?") == true)
            #expect(pressed.redirectParameters["code"] != nil)
            #expect(pressed.redirectParameters["state"] == "state-123")
        }
    }

    @Test func theClickNeedsTheFormsCSRFToken() async throws {
        try await ProviderHarness.with { harness in
            try harness.addUser()
            let client = try publicClient(harness)
            let browser = TestBrowser(base: harness.base)
            _ = try await browser.authorizeWithConsent(client: client)
            let again = try await browser.get(TestBrowser.authorizePath(client: client))
            let page = try await browser.get(try #require(again.location))
            let forged = try await browser.post(
                "/continue",
                [
                    ("csrf_token", "forged"), ("request", try #require(page.hiddenField("request"))),
                    ("decision", "continue"),
                ])
            #expect(forged.status >= 400)
            #expect(forged.redirectParameters["code"] == nil)
        }
    }

    @Test func promptNoneGetsInteractionRequired() async throws {
        try await ProviderHarness.with { harness in
            try harness.addUser()
            let client = try publicClient(harness)
            let browser = TestBrowser(base: harness.base)
            _ = try await browser.authorizeWithConsent(client: client)
            let silent = try await browser.get(TestBrowser.authorizePath(client: client, overrides: ["prompt": "none"]))
            #expect(silent.location?.hasPrefix("http://127.0.0.1/callback?") == true)
            #expect(silent.redirectParameters["error"] == "interaction_required")
            #expect(silent.redirectParameters["code"] == nil)
        }
    }

    @Test func aPasswordJustEnteredIsTheClick() async throws {
        try await ProviderHarness.with { harness in
            try harness.addUser()
            let client = try publicClient(harness)
            let browser = TestBrowser(base: harness.base)
            _ = try await browser.authorizeWithConsent(client: client)
            let start = try await browser.get(TestBrowser.authorizePath(client: client, overrides: ["prompt": "login"]))
            let login = try await browser.signIn(at: try #require(start.location))
            #expect(login.redirectParameters["code"] != nil, "\(login.location ?? "")")
        }
    }

    @Test func aConfidentialAppAllowedBeforeKeepsTheSilentPath() async throws {
        try await ProviderHarness.with { harness in
            try harness.addUser()
            let client = try harness.addClient()
            let browser = TestBrowser(base: harness.base)
            _ = try await browser.authorizeWithConsent(client: client)
            let again = try await browser.get(TestBrowser.authorizePath(client: client))
            #expect(again.location?.hasPrefix("https://app.example/callback?") == true)
            #expect(again.redirectParameters["code"] != nil)
        }
    }

    @Test func thePageSpeaksChinese() async throws {
        try await ProviderHarness.with { harness in
            try harness.addUser()
            let client = try publicClient(harness)
            let browser = TestBrowser(base: harness.base, acceptLanguage: "zh-CN,zh;q=0.9")
            _ = try await browser.authorizeWithConsent(client: client)
            let again = try await browser.get(TestBrowser.authorizePath(client: client))
            let page = try await browser.get(try #require(again.location))
            #expect(page.text.contains("以 Ann Example 的身份继续使用 Example App"))
            #expect(page.text.contains("您以前允许过此应用。"))
        }
    }
}
