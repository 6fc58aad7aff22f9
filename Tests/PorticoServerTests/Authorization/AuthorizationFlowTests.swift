import Foundation
import PorticoCrypto
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

/// The whole authorization code flow over real HTTP: authorize, sign in, consent, redirect.
@Suite struct AuthorizationFlowTests {
    @Test func fullFlowIssuesACodeBoundToTheRequest() async throws {
        try await ProviderHarness.with { provider in
            let user = try provider.addUser()
            let client = try provider.addClient()
            let browser = TestBrowser(base: provider.base)
            let pkce = PKCEPair()

            let start = try await browser.get(TestBrowser.authorizePath(client: client, pkce: pkce))
            #expect(start.status == 302)
            let loginLocation = try #require(start.location)
            #expect(loginLocation.hasPrefix("/login?request="))

            let loginPage = try await browser.get(loginLocation)
            #expect(loginPage.status == 200)
            #expect(loginPage.text.contains("Example App"))
            for field in [#"name="email""#, #"name="password""#, #"name="remember_me""#, #"id="show-password""#] {
                #expect(loginPage.text.contains(field))
            }
            #expect(loginPage.text.components(separatedBy: #"type="submit""#).count == 2)
            #expect(loginPage.text.contains(#"href="/password/forgot"#))
            #expect(loginPage.text.contains(#"href="/signup"#))

            let login = try await browser.signIn(at: loginLocation)
            #expect(login.status == 303)
            let consentLocation = try #require(login.location)
            #expect(consentLocation.hasPrefix("/consent?request="))

            let consentPage = try await browser.get(consentLocation)
            #expect(consentPage.status == 200)
            #expect(consentPage.text.contains("Ann Example"))
            #expect(consentPage.text.contains("Not you? Switch account"))
            #expect(consentPage.text.contains("See your name, e-mail address and account ID"))
            #expect(consentPage.text.contains("Confirm that it is you when you sign in"))
            #expect(consentPage.text.contains(#"name="decision" value="allow""#))
            #expect(consentPage.text.contains(#"name="decision" value="deny""#))
            #expect(consentPage.text.contains(#"href="/account""#))
            #expect(consentPage.text.contains(#"href="https://app.example/privacy""#))

            let done = try await browser.decide(at: consentLocation, "allow")
            #expect(done.status == 303)
            let location = try #require(done.location)
            #expect(location.hasPrefix("https://app.example/callback?"))
            let parameters = done.redirectParameters
            #expect(parameters["state"] == "state-123")
            #expect(parameters["iss"] == provider.issuer)
            let code = try #require(parameters["code"])

            let stored = try #require(try provider.store.authorizationCode(code))
            #expect(stored.clientID == client.id)
            #expect(stored.userID == user.id)
            #expect(stored.redirectURI == "https://app.example/callback")
            #expect(stored.scopes == ["openid", "profile"])
            #expect(stored.codeChallenge == pkce.challenge)
            #expect(stored.nonce == "nonce-456")
            #expect(stored.consumedAt == nil)
            #expect(stored.expiresAt.timeIntervalSince(stored.createdAt) <= 61)
            let sessionToken = try #require(browser.cookie("portico_session"))
            let session = try #require(try provider.store.session(token: sessionToken))
            #expect(stored.sessionHashedID == session.hashedID)
            #expect(stored.authTime == session.authTime)
        }
    }

    @Test func cancelReturnsAccessDenied() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let client = try provider.addClient()
            let browser = TestBrowser(base: provider.base)
            let start = try await browser.get(TestBrowser.authorizePath(client: client))
            let login = try await browser.signIn(at: try #require(start.location))
            let denied = try await browser.decide(at: try #require(login.location), "deny")
            #expect(denied.status == 303)
            #expect(try #require(denied.location).hasPrefix("https://app.example/callback?"))
            #expect(denied.redirectParameters["error"] == "access_denied")
            #expect(denied.redirectParameters["state"] == "state-123")
            #expect(denied.redirectParameters["iss"] == provider.issuer)
            #expect(denied.redirectParameters["code"] == nil)
        }
    }

    @Test func consentIsRememberedAndAskedAgainOnlyForNewScopes() async throws {
        try await ProviderHarness.with { provider in
            let user = try provider.addUser()
            let client = try provider.addClient()
            let browser = TestBrowser(base: provider.base)
            let first = try await browser.authorizeWithConsent(client: client)
            #expect(first.redirectParameters["code"] != nil)

            let second = try await browser.get(TestBrowser.authorizePath(client: client))
            #expect(second.status == 302)
            #expect(try #require(second.location).hasPrefix("https://app.example/callback?"))
            #expect(second.redirectParameters["code"] != nil)

            let third = try await browser.get(
                TestBrowser.authorizePath(client: client, scope: "openid profile postal_code"))
            let consentLocation = try #require(third.location)
            #expect(consentLocation.hasPrefix("/consent?"))
            let page = try await browser.get(consentLocation)
            let asked = try #require(page.text.range(of: #"<ul class="permissions">"#))
            let rest = page.text[asked.upperBound...]
            let askedList = rest[..<(rest.range(of: "</ul>")?.lowerBound ?? rest.endIndex)]
            #expect(askedList.contains("See the postal code of your address"))
            #expect(!askedList.contains("See your name"))
            #expect(page.text.contains("You already allowed"))

            let done = try await browser.decide(at: consentLocation, "allow")
            let code = try #require(done.redirectParameters["code"])
            #expect(try provider.store.authorizationCode(code)?.scopes == ["openid", "profile", "postal_code"])
            let consent = try #require(try provider.store.consent(userID: user.id, clientID: client.id))
            #expect(consent.scopes == ["openid", "profile", "postal_code"])
        }
    }

    @Test func promptConsentShowsThePageAgain() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let client = try provider.addClient()
            let browser = TestBrowser(base: provider.base)
            _ = try await browser.authorizeWithConsent(client: client)
            let again = try await browser.get(
                TestBrowser.authorizePath(client: client, overrides: ["prompt": "consent"]))
            #expect(try #require(again.location).hasPrefix("/consent?"))
            let page = try await browser.get(try #require(again.location))
            #expect(page.status == 200)
            #expect(page.text.contains("See your name, e-mail address and account ID"))
        }
    }

    @Test func promptNoneAnswersWithoutPages() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let client = try provider.addClient()
            let browser = TestBrowser(base: provider.base)

            let anonymous = try await browser.get(
                TestBrowser.authorizePath(client: client, overrides: ["prompt": "none"]))
            #expect(anonymous.status == 302)
            #expect(anonymous.redirectParameters["error"] == "login_required")
            #expect(anonymous.redirectParameters["state"] == "state-123")
            #expect(anonymous.redirectParameters["iss"] == provider.issuer)

            let start = try await browser.get(TestBrowser.authorizePath(client: client))
            _ = try await browser.signIn(at: try #require(start.location))
            let unconsented = try await browser.get(
                TestBrowser.authorizePath(client: client, overrides: ["prompt": "none"]))
            #expect(unconsented.redirectParameters["error"] == "consent_required")

            _ = try await browser.authorizeWithConsent(client: client)
            let silent = try await browser.get(TestBrowser.authorizePath(client: client, overrides: ["prompt": "none"]))
            #expect(silent.redirectParameters["code"] != nil)
            #expect(silent.redirectParameters["error"] == nil)
        }
    }

    @Test func promptLoginAsksForThePasswordAgain() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let client = try provider.addClient()
            let browser = TestBrowser(base: provider.base)
            _ = try await browser.authorizeWithConsent(client: client)
            let oldSession = try #require(browser.cookie("portico_session"))

            let forced = try await browser.get(
                TestBrowser.authorizePath(client: client, overrides: ["prompt": "login"]))
            let loginLocation = try #require(forced.location)
            #expect(loginLocation.hasPrefix("/login?"))
            let login = try await browser.signIn(at: loginLocation)
            #expect(login.redirectParameters["code"] != nil)
            #expect(browser.cookie("portico_session") != oldSession)
        }
    }

    @Test func maxAgeRequiresARecentPassword() async throws {
        try await ProviderHarness.with { provider in
            let user = try provider.addUser()
            let client = try provider.addClient()
            _ = try provider.store.transaction {
                try ConsentPolicy().grant(
                    userID: user.id, clientID: client.id, scopes: ["openid", "profile"], in: $0, now: Date())
            }
            let token = SecureRandom.token()
            let now = Date()
            try provider.store.insert(
                BrowserSession(
                    token: token, userID: user.id, createdAt: now.addingTimeInterval(-7200),
                    expiresAt: now.addingTimeInterval(3600), authTime: now.addingTimeInterval(-7200)))
            let browser = TestBrowser(base: provider.base)
            browser.setCookie("portico_session", token)

            let lenient = try await browser.get(
                TestBrowser.authorizePath(client: client, overrides: ["max_age": "86400"]))
            #expect(lenient.redirectParameters["code"] != nil)

            let strict = try await browser.get(TestBrowser.authorizePath(client: client, overrides: ["max_age": "60"]))
            let loginLocation = try #require(strict.location)
            #expect(loginLocation.hasPrefix("/login?"))
            let silent = try await browser.get(
                TestBrowser.authorizePath(client: client, overrides: ["max_age": "60", "prompt": "none"]))
            #expect(silent.redirectParameters["error"] == "login_required")

            let login = try await browser.signIn(at: loginLocation)
            let code = try #require(login.redirectParameters["code"])
            let stored = try #require(try provider.store.authorizationCode(code))
            #expect(stored.authTime > now.addingTimeInterval(-60))
        }
    }

    @Test func loginHintFillsInTheEmailAndSwitchAccountSignsOut() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            try provider.addUser(email: "bob@example.com", name: "Bob Other")
            let client = try provider.addClient()
            let browser = TestBrowser(base: provider.base)
            let start = try await browser.get(
                TestBrowser.authorizePath(client: client, overrides: ["login_hint": "ann@example.com"]))
            let loginPage = try await browser.get(try #require(start.location))
            #expect(loginPage.text.contains(#"value="ann@example.com""#))

            let login = try await browser.signIn(at: try #require(start.location))
            let consentLocation = try #require(login.location)
            let oldSession = try #require(browser.cookie("portico_session"))
            let switched = try await browser.decide(at: consentLocation, "switch")
            #expect(switched.status == 303)
            #expect(try #require(switched.location).hasPrefix("/login?request="))
            #expect(browser.cookie("portico_session") == nil)
            #expect(try provider.store.session(token: oldSession) == nil)

            let bob = try await browser.signIn(at: try #require(switched.location), email: "bob@example.com")
            let page = try await browser.get(try #require(bob.location))
            #expect(page.text.contains("Bob Other"))
        }
    }

    @Test func postToTheAuthorizationEndpointWorksLikeGet() async throws {
        try await ProviderHarness.with { provider in
            let client = try provider.addClient()
            let browser = TestBrowser(base: provider.base)
            let pkce = PKCEPair()
            let reply = try await browser.post(
                "/oauth/authorize",
                [
                    ("response_type", "code"), ("client_id", client.id), ("redirect_uri", client.redirectURIs[0]),
                    ("scope", "openid"), ("code_challenge", pkce.challenge), ("code_challenge_method", "S256"),
                ])
            #expect(reply.status == 303)
            #expect(try #require(reply.location).hasPrefix("/login?request="))
        }
    }
}
