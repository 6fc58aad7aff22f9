import Foundation
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sign-in behaviour, sessions, CSRF, headers and escaping of the pages.
@Suite struct SignInAndSecurityTests {
    @Test func wrongPasswordAndUnknownEmailGetTheSameAnswer() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let client = try provider.addClient()
            let browser = TestBrowser(base: provider.base)
            let start = try await browser.get(TestBrowser.authorizePath(client: client))
            let loginLocation = try #require(start.location)
            let wrong = try await browser.signIn(at: loginLocation, password: "wrong horse")
            let unknown = try await browser.signIn(at: loginLocation, email: "nobody@example.com")
            for (reply, email) in [(wrong, "ann@example.com"), (unknown, "nobody@example.com")] {
                #expect(reply.status == 200)
                #expect(reply.location == nil)
                #expect(reply.text.contains("Your email or password is incorrect"))
                #expect(reply.text.contains(#"value="\#(email)""#))
                #expect(reply.setCookie("portico_session") == nil)
                #expect(reply.hiddenField("request") != nil)
            }
            #expect(browser.cookie("portico_session") == nil)
        }
    }

    @Test func disabledPeopleCannotSignIn() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser(disabled: true)
            let client = try provider.addClient()
            let browser = TestBrowser(base: provider.base)
            let start = try await browser.get(TestBrowser.authorizePath(client: client))
            let reply = try await browser.signIn(at: try #require(start.location))
            #expect(reply.status == 200)
            // The same words as a wrong password: the page must not confirm a guessed password.
            #expect(reply.text.contains("Your email or password is incorrect"))
            #expect(!reply.text.contains("disabled"))
            #expect(browser.cookie("portico_session") == nil)
        }
    }

    @Test func formsWithoutAValidCSRFTokenAreRefused() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let client = try provider.addClient()
            let browser = TestBrowser(base: provider.base)
            let start = try await browser.get(TestBrowser.authorizePath(client: client))
            let loginLocation = try #require(start.location)
            let page = try await browser.get(loginLocation)
            let request = try #require(page.hiddenField("request"))
            let credentials = [("email", "ann@example.com"), ("password", "correct horse"), ("request", request)]

            let missing = try await browser.post("/login", credentials)
            #expect(missing.status == 403)
            #expect(missing.text.contains("couldn"))
            let forged = try await browser.post("/login", credentials + [("csrf_token", "AAAA")])
            #expect(forged.status == 403)
            let otherBrowser = TestBrowser(base: provider.base)
            let token = try #require(page.hiddenField("csrf_token"))
            let stolen = try await otherBrowser.post("/login", credentials + [("csrf_token", token)])
            #expect(stolen.status == 403)
            #expect(browser.cookie("portico_session") == nil)

            let login = try await browser.signIn(at: loginLocation)
            let consent = try await browser.post(
                "/consent", [("request", request), ("decision", "allow"), ("csrf_token", token)])
            #expect(consent.status == 403)
            #expect(consent.location == nil)
            #expect(login.status == 303)
        }
    }

    @Test func sessionCookieIsHttpOnlyLaxAndEndsWithTheBrowser() async throws {
        try await ProviderHarness.with { provider in
            let user = try provider.addUser()
            let client = try provider.addClient()
            let browser = TestBrowser(base: provider.base)
            let start = try await browser.get(TestBrowser.authorizePath(client: client))
            let login = try await browser.signIn(at: try #require(start.location))
            let cookie = try #require(login.setCookie("portico_session"))
            #expect(cookie.contains("HttpOnly"))
            #expect(cookie.contains("SameSite=Lax"))
            #expect(cookie.contains("Path=/"))
            #expect(!cookie.contains("Max-Age"))
            #expect(!cookie.contains("Secure"))
            let token = try #require(browser.cookie("portico_session"))
            #expect(token.utf8.count == 43)
            let session = try #require(try provider.store.session(token: token))
            #expect(session.userID == user.id)
            #expect(!session.isPersistent)
            #expect(session.hashedID != token)
        }
    }

    @Test func keepMeSignedInMakesAPersistentSession() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let client = try provider.addClient()
            let browser = TestBrowser(base: provider.base)
            let start = try await browser.get(TestBrowser.authorizePath(client: client))
            let login = try await browser.signIn(at: try #require(start.location), remember: true)
            let cookie = try #require(login.setCookie("portico_session"))
            #expect(cookie.contains("Max-Age=2592000"))
            #expect(cookie.contains("HttpOnly"))
            let token = try #require(browser.cookie("portico_session"))
            let session = try #require(try provider.store.session(token: token))
            #expect(session.isPersistent)
            #expect(session.expiresAt.timeIntervalSince(session.createdAt) > 29 * 24 * 3600)
        }
    }

    @Test func signingInReplacesTheSessionID() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let client = try provider.addClient()
            let browser = TestBrowser(base: provider.base)
            browser.setCookie("portico_session", "planted-by-an-attacker-xxxxxxxxxxxxxxxxxxxx")
            let start = try await browser.get(TestBrowser.authorizePath(client: client))
            _ = try await browser.signIn(at: try #require(start.location))
            let first = try #require(browser.cookie("portico_session"))
            #expect(first != "planted-by-an-attacker-xxxxxxxxxxxxxxxxxxxx")

            let again = try await browser.get(TestBrowser.authorizePath(client: client, overrides: ["prompt": "login"]))
            _ = try await browser.signIn(at: try #require(again.location))
            let second = try #require(browser.cookie("portico_session"))
            #expect(second != first)
            #expect(try provider.store.session(token: first) == nil)
            #expect(try provider.store.session(token: second) != nil)
        }
    }

    @Test func pagesSendSecurityHeaders() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let client = try provider.addClient()
            let browser = TestBrowser(base: provider.base)
            let start = try await browser.get(TestBrowser.authorizePath(client: client))
            let loginPage = try await browser.get(try #require(start.location))
            let login = try await browser.signIn(at: try #require(start.location))
            let consentPage = try await browser.get(try #require(login.location))
            let errorPage = try await browser.get(
                TestBrowser.authorizePath(client: client, overrides: ["client_id": "x"]))
            for page in [loginPage, consentPage, errorPage, start, login] {
                let policy = try #require(page.header("Content-Security-Policy"))
                #expect(policy.contains("default-src 'self'"))
                #expect(policy.contains("frame-ancestors 'none'"))
                #expect(page.header("X-Content-Type-Options") == "nosniff")
                #expect(page.header("Referrer-Policy") == "no-referrer")
                #expect(page.header("X-Frame-Options") == "DENY")
                #expect(page.header("Cache-Control") == "no-store")
            }
            let csrf = try #require(loginPage.setCookie("portico_csrf"))
            #expect(csrf.contains("HttpOnly"))
            #expect(csrf.contains("SameSite=Lax"))
        }
    }

    @Test func clientNamesAreEscaped() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let client = try provider.addClient(
                name: #"<script>alert("x")</script>"#, logoURL: #"https://cdn.example/logo.png"><script>"#,
                privacyURL: "javascript:alert(1)")
            let browser = TestBrowser(base: provider.base)
            let start = try await browser.get(TestBrowser.authorizePath(client: client))
            let loginPage = try await browser.get(try #require(start.location))
            #expect(loginPage.text.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"))
            #expect(!loginPage.text.contains("<script>alert"))
            let login = try await browser.signIn(at: try #require(start.location))
            let consent = try await browser.get(try #require(login.location))
            #expect(!consent.text.contains("<script>alert"))
            #expect(!consent.text.contains(#""><script>"#))
            #expect(!consent.text.contains("javascript:"))
            let bad = try await browser.get(
                TestBrowser.authorizePath(client: client, overrides: ["redirect_uri": "https://x.example/<b>"]))
            #expect(bad.status == 400)
            #expect(!bad.text.contains("<script>alert"))
            #expect(!bad.text.contains("<b>"))
        }
    }

    @Test func consentPageShowsTheLogoOrAPlaceholder() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let withLogo = try provider.addClient(name: "Logo App", logoURL: "https://cdn.example/logo.png")
            let without = try provider.addClient(name: "Plain App")
            let browser = TestBrowser(base: provider.base)
            let first = try await browser.get(TestBrowser.authorizePath(client: withLogo))
            let login = try await browser.signIn(at: try #require(first.location))
            let page = try await browser.get(try #require(login.location))
            #expect(
                page.text.contains(#"<img class="app-logo" src="https://cdn.example/logo.png" alt="Logo App logo">"#))
            let second = try await browser.get(TestBrowser.authorizePath(client: without))
            let plain = try await browser.get(try #require(second.location))
            #expect(plain.text.contains(#"class="app-placeholder""#))
            #expect(!plain.text.contains("<img"))
        }
    }

    @Test func tamperedOrMissingRequestsShowAPage() async throws {
        try await ProviderHarness.with { provider in
            let client = try provider.addClient()
            let browser = TestBrowser(base: provider.base)
            let start = try await browser.get(TestBrowser.authorizePath(client: client))
            let location = try #require(start.location)
            let tampered = location.dropLast(4) + "AAAA"
            for target in ["/consent", "/consent?request=junk", String(tampered)] {
                let reply = try await browser.get(target)
                #expect(reply.status == 400, "\(target)")
                #expect(reply.text.contains("not valid"))
            }
        }
    }

    @Test func signInRehashesOldPasswordHashes() async throws {
        try await ProviderHarness.with { provider in
            let old = PasswordHashingSettings(memoryKiB: 32, iterations: 1, parallelism: 1)
            let user = try provider.addUser(settings: old)
            let client = try provider.addClient()
            let browser = TestBrowser(base: provider.base)
            let start = try await browser.get(TestBrowser.authorizePath(client: client))
            let reply = try await browser.signIn(at: try #require(start.location))
            #expect(reply.status == 303)
            let stored = try #require(try provider.store.user(id: user.id))
            #expect(stored.passwordHash != user.passwordHash)
            #expect(stored.passwordHash.contains("m=64,t=1,p=1"))
            #expect(
                PasswordHasher(settings: ProviderHarness.passwordHashing).verify(
                    "correct horse", against: stored.passwordHash))
        }
    }

    @Test func stylesheetIsCacheable() async throws {
        try await ProviderHarness.with { provider in
            let browser = TestBrowser(base: provider.base)
            let css = try await browser.get("/assets/portico.css")
            #expect(css.status == 200)
            #expect(css.header("Content-Type")?.hasPrefix("text/css") == true)
            #expect(css.header("Cache-Control")?.contains("public") == true)
            #expect(css.header("Cache-Control")?.contains("max-age=") == true)
            let etag = try #require(css.header("ETag"))
            let script = try await browser.get("/assets/portico.js")
            #expect(script.status == 200)
            #expect(script.text.contains("show-password"))

            let url = try #require(URL(string: provider.base + "/assets/portico.css"))
            var request = URLRequest(url: url)
            request.setValue(etag, forHTTPHeaderField: "If-None-Match")
            let (_, response) = try await URLSession(configuration: .ephemeral).data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 304)
        }
    }
}
