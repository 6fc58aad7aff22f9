import Foundation
import PorticoCrypto
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

/// "Keep me signed in" and "Continue as …" over real HTTP.
@Suite struct KeepSignedInTests {
    /// How far a lifetime read back may be from the one expected: the requests between the
    /// test reading the clock and the server writing the cookie take seconds on a loaded
    /// machine (12 s was seen), while the lifetimes told apart here differ by hours or days.
    private let slack: TimeInterval = 120

    @Test func rememberMeMakesAPersistentSessionAndContinueAsAfterARestart() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let client = try provider.addClient()
            let browser = TestBrowser(base: provider.base)
            let start = try await browser.get(TestBrowser.authorizePath(client: client))
            let before = Date()
            let login = try await browser.signIn(at: try #require(start.location), remember: true)
            let cookie = try #require(login.setCookie("portico_session"))
            #expect(sessionMaxAge(cookie) == 30 * 24 * 3600)
            #expect(cookie.contains("; Expires="))
            #expect(cookie.contains("; HttpOnly"))
            #expect(cookie.contains("; SameSite=Lax"))
            let sessionToken = try #require(browser.cookie("portico_session"))
            let session = try #require(try provider.store.session(token: sessionToken))
            #expect(session.isPersistent)
            #expect(abs(session.expiresAt.timeIntervalSince(before) - 30 * 24 * 3600) < slack)
            let allowed = try await browser.decide(at: try #require(login.location), "allow")
            #expect(allowed.redirectParameters["code"] != nil)

            // Same browser run: the password was just entered, so no question.
            let again = try await browser.get(TestBrowser.authorizePath(client: client))
            #expect(again.redirectParameters["code"] != nil)

            browser.restart()
            let returning = try await browser.get(TestBrowser.authorizePath(client: client))
            #expect(returning.status == 302)
            let continueLocation = try #require(returning.location)
            #expect(continueLocation.hasPrefix("/continue?request="))
            let page = try await browser.get(continueLocation)
            #expect(page.status == 200)
            #expect(page.text.contains("Continue as Ann Example"))
            #expect(page.text.contains("ann@example.com"))
            #expect(page.text.contains("Example App"))
            #expect(page.text.contains(#"name="decision" value="continue""#))
            #expect(page.text.contains("Not you?"))
            let fields = [
                ("csrf_token", try #require(page.hiddenField("csrf_token"))),
                ("request", try #require(page.hiddenField("request"))),
            ]

            let forged = try await browser.post(
                "/continue", [("csrf_token", "x"), fields[1], ("decision", "continue")])
            #expect(forged.status == 403)

            let continued = try await browser.post("/continue", fields + [("decision", "continue")])
            #expect(continued.status == 303)
            #expect(try #require(continued.location).hasPrefix("https://app.example/callback?"))
            #expect(continued.redirectParameters["code"] != nil)
            #expect(continued.redirectParameters["state"] == "state-123")
            #expect(continued.setCookie("portico_confirmed") != nil)

            let afterwards = try await browser.get(TestBrowser.authorizePath(client: client))
            #expect(afterwards.redirectParameters["code"] != nil)
        }
    }

    @Test func continueLeadsToConsentWhenTheAppAsksForMore() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let client = try provider.addClient()
            let browser = TestBrowser(base: provider.base)
            _ = try await sessionFirstAuthorization(browser, client: client, remember: true)
            browser.restart()
            let start = try await browser.get(
                TestBrowser.authorizePath(client: client, scope: "openid profile postal_code"))
            let page = try await browser.get(try #require(start.location))
            let continued = try await browser.post(
                "/continue",
                [
                    ("csrf_token", try #require(page.hiddenField("csrf_token"))),
                    ("request", try #require(page.hiddenField("request"))), ("decision", "continue"),
                ])
            let consentLocation = try #require(continued.location)
            #expect(consentLocation.hasPrefix("/consent?request="))
            let consent = try await browser.get(consentLocation)
            #expect(consent.text.contains("See the postal code of your address"))
        }
    }

    @Test func notYouSignsOutAndShowsTheSignInPageForTheSameRequest() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let bob = try provider.addUser(email: "bob@example.com", name: "Bob Other")
            let client = try provider.addClient()
            let browser = TestBrowser(base: provider.base)
            _ = try await sessionFirstAuthorization(browser, client: client, remember: true)
            let annToken = try #require(browser.cookie("portico_session"))
            browser.restart()

            let start = try await browser.get(TestBrowser.authorizePath(client: client))
            let page = try await browser.get(try #require(start.location))
            let seal = try #require(page.hiddenField("request"))
            let switched = try await browser.post(
                "/continue",
                [
                    ("csrf_token", try #require(page.hiddenField("csrf_token"))), ("request", seal),
                    ("decision", "switch"),
                ])
            #expect(switched.status == 303)
            let loginLocation = try #require(switched.location)
            #expect(loginLocation.hasPrefix("/login?request="))
            #expect(try #require(switched.setCookie("portico_session")).contains("Max-Age=0"))
            #expect(browser.cookie("portico_session") == nil)
            #expect(try provider.store.session(token: annToken) == nil)

            let login = try await browser.signIn(at: loginLocation, email: "bob@example.com")
            let consent = try #require(login.location)
            #expect(consent.hasPrefix("/consent?"))
            let done = try await browser.decide(at: consent, "allow")
            let code = try #require(done.redirectParameters["code"])
            #expect(try provider.store.authorizationCode(code)?.userID == bob.id)
        }
    }

    @Test func promptNoneNeverShowsContinueAndPromptLoginOrMaxAgeAskForThePassword() async throws {
        try await ProviderHarness.with { provider in
            let user = try provider.addUser()
            let client = try provider.addClient()
            let other = try provider.addClient(name: "Other App")
            _ = try provider.store.transaction {
                try ConsentPolicy().grant(
                    userID: user.id, clientID: client.id, scopes: ["openid", "profile"], in: $0, now: Date())
            }
            let token = SecureRandom.token()
            let now = Date()
            try provider.store.insert(
                BrowserSession(
                    token: token, userID: user.id, createdAt: now.addingTimeInterval(-7200),
                    expiresAt: now.addingTimeInterval(20 * 24 * 3600), authTime: now.addingTimeInterval(-7200),
                    isPersistent: true))
            let browser = TestBrowser(base: provider.base)
            browser.setCookie("portico_session", token)

            let silent = try await browser.get(TestBrowser.authorizePath(client: client, overrides: ["prompt": "none"]))
            #expect(silent.status == 302)
            #expect(silent.redirectParameters["code"] != nil)
            let silentOther = try await browser.get(
                TestBrowser.authorizePath(client: other, overrides: ["prompt": "none"]))
            #expect(silentOther.redirectParameters["error"] == "consent_required")
            let tooOld = try await browser.get(
                TestBrowser.authorizePath(client: client, overrides: ["prompt": "none", "max_age": "60"]))
            #expect(tooOld.redirectParameters["error"] == "login_required")

            let forced = try await browser.get(
                TestBrowser.authorizePath(client: client, overrides: ["prompt": "login"]))
            let forcedLocation = try #require(forced.location)
            #expect(forcedLocation.hasPrefix("/login?"))
            let loginPage = try await browser.get(forcedLocation)
            #expect(loginPage.text.contains(#"name="remember_me" value="1" checked"#))
            let strict = try await browser.get(TestBrowser.authorizePath(client: client, overrides: ["max_age": "60"]))
            #expect(try #require(strict.location).hasPrefix("/login?"))
            let lenient = try await browser.get(
                TestBrowser.authorizePath(client: client, overrides: ["max_age": "86400"]))
            #expect(try #require(lenient.location).hasPrefix("/continue?"))
            let plain = try await browser.get(TestBrowser.authorizePath(client: client))
            #expect(try #require(plain.location).hasPrefix("/continue?"))

            let login = try await browser.signIn(at: forcedLocation, remember: true)
            #expect(login.redirectParameters["code"] != nil)
            #expect(try provider.store.session(token: token) == nil)
        }
    }

    @Test func withoutRememberMeTheCookieEndsWithTheBrowserAndNothingIsAsked() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let client = try provider.addClient()
            let browser = TestBrowser(base: provider.base)
            let start = try await browser.get(TestBrowser.authorizePath(client: client))
            let before = Date()
            let login = try await browser.signIn(at: try #require(start.location))
            let cookie = try #require(login.setCookie("portico_session"))
            #expect(!cookie.contains("Max-Age"))
            #expect(!cookie.contains("Expires"))
            let token = try #require(browser.cookie("portico_session"))
            let session = try #require(try provider.store.session(token: token))
            #expect(!session.isPersistent)
            #expect(abs(session.expiresAt.timeIntervalSince(before) - 12 * 3600) < slack)
            _ = try await browser.decide(at: try #require(login.location), "allow")

            // A session cookie the browser kept (a restored tab) is still not "kept signed in".
            browser.setCookie("portico_confirmed", nil)
            let again = try await browser.get(TestBrowser.authorizePath(client: client))
            #expect(again.redirectParameters["code"] != nil)

            browser.restart(keepingSession: false)
            let closed = try await browser.get(TestBrowser.authorizePath(client: client))
            #expect(try #require(closed.location).hasPrefix("/login?"))
        }
    }

    @Test func aPersistentSessionSlidesOnUseUpToItsCap() async throws {
        try await ProviderHarness.with { provider in
            let user = try provider.addUser()
            let client = try provider.addClient()
            _ = try provider.store.transaction {
                try ConsentPolicy().grant(
                    userID: user.id, clientID: client.id, scopes: ["openid", "profile"], in: $0, now: Date())
            }
            let now = Date()
            let day: TimeInterval = 24 * 3600

            func continueAsReturning(_ token: String) async throws -> TestReply {
                let browser = TestBrowser(base: provider.base)
                browser.setCookie("portico_session", token)
                let start = try await browser.get(TestBrowser.authorizePath(client: client))
                let page = try await browser.get(try #require(start.location))
                return try await browser.post(
                    "/continue",
                    [
                        ("csrf_token", try #require(page.hiddenField("csrf_token"))),
                        ("request", try #require(page.hiddenField("request"))), ("decision", "continue"),
                    ])
            }

            let recent = SecureRandom.token()
            try provider.store.insert(
                BrowserSession(
                    token: recent, userID: user.id, createdAt: now.addingTimeInterval(-2 * day),
                    expiresAt: now.addingTimeInterval(28 * day), lastSeenAt: now.addingTimeInterval(-2 * day),
                    authTime: now.addingTimeInterval(-2 * day), isPersistent: true))
            let slid = try await continueAsReturning(recent)
            #expect(slid.redirectParameters["code"] != nil)
            let renewed = try #require(slid.setCookie("portico_session"))
            #expect(abs((sessionMaxAge(renewed) ?? 0) - Int(30 * day)) < Int(slack))
            let stored = try #require(try provider.store.session(token: recent))
            #expect(abs(stored.expiresAt.timeIntervalSince(now) - 30 * day) < slack)
            #expect(abs(stored.lastSeenAt.timeIntervalSince(now)) < slack)

            let old = SecureRandom.token()
            try provider.store.insert(
                BrowserSession(
                    token: old, userID: user.id, createdAt: now.addingTimeInterval(-89 * day),
                    expiresAt: now.addingTimeInterval(0.5 * day), lastSeenAt: now.addingTimeInterval(-day),
                    authTime: now.addingTimeInterval(-89 * day), isPersistent: true))
            let capped = try await continueAsReturning(old)
            let cappedCookie = try #require(capped.setCookie("portico_session"))
            #expect(abs((sessionMaxAge(cappedCookie) ?? 0) - Int(day)) < Int(slack))
            let cappedSession = try #require(try provider.store.session(token: old))
            #expect(abs(cappedSession.expiresAt.timeIntervalSince(now) - day) < slack)
        }
    }
}
