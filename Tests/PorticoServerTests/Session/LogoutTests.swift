import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

/// RP-initiated logout (`/oauth/logout`) over real HTTP.
@Suite struct LogoutTests {
    /// Signs in with "keep me signed in", allows, redeems the code, and returns the ID token.
    private func signInAndGetIDToken(_ provider: ProviderHarness, _ browser: TestBrowser, client: Client) async throws
        -> String
    {
        let pkce = PKCEPair()
        let done = try await sessionFirstAuthorization(browser, client: client, pkce: pkce, remember: true)
        let code = try #require(done.redirectParameters["code"])
        let tokens = try await sessionRedeem(browser, client: client, code: code, pkce: pkce)
        return try #require(tokens["id_token"]?.stringValue)
    }

    private func logoutPath(_ parameters: [(String, String)]) -> String {
        var components = URLComponents()
        components.path = "/oauth/logout"
        components.queryItems = parameters.map { URLQueryItem(name: $0.0, value: $0.1) }
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.string ?? "/oauth/logout"
    }

    @Test func discoveryAdvertisesTheEndSessionEndpoint() async throws {
        try await ProviderHarness.with { provider in
            let reply = try await TestBrowser(base: provider.base).get("/.well-known/openid-configuration")
            let document = try #require(JSONValue(parsing: Array(reply.text.utf8))?.objectValue)
            #expect(document["end_session_endpoint"]?.stringValue == provider.issuer + "/oauth/logout")
        }
    }

    @Test func aHintForThisSessionSignsOutAtOnceAndReturnsWithState() async throws {
        try await ProviderHarness.with { provider in
            let user = try provider.addUser()
            let client = try provider.addLogoutClient()
            let browser = TestBrowser(base: provider.base)
            let idToken = try await signInAndGetIDToken(provider, browser, client: client)
            let sessionToken = try #require(browser.cookie("portico_session"))

            let reply = try await browser.get(
                logoutPath([
                    ("id_token_hint", idToken), ("post_logout_redirect_uri", sessionTestSignedOutURI),
                    ("state", "bye & back"), ("ui_locales", "en"),
                ]))
            #expect(reply.status == 302)
            #expect(reply.location == sessionTestSignedOutURI + "?state=bye%20%26%20back")
            #expect(reply.redirectParameters["state"] == "bye & back")
            #expect(try #require(reply.setCookie("portico_session")).contains("Max-Age=0"))
            #expect(try #require(reply.setCookie("portico_confirmed")).contains("Max-Age=0"))
            #expect(try provider.store.session(token: sessionToken) == nil)
            #expect(try provider.store.sessions(userID: user.id).isEmpty)
            let events = try provider.store.read { try $0.recentAuditEvents(limit: 10) }
            #expect(events.contains { $0.action == "session.logout" && $0.actor == user.id })

            // The session is really gone: even with the old cookie the app must ask for a sign-in.
            browser.setCookie("portico_session", sessionToken)
            let next = try await browser.get(TestBrowser.authorizePath(client: client))
            #expect(try #require(next.location).hasPrefix("/login?"))
        }
    }

    @Test func withoutAHintThePersonIsAskedFirst() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let client = try provider.addLogoutClient()
            let browser = TestBrowser(base: provider.base)
            _ = try await sessionFirstAuthorization(browser, client: client, remember: false)
            let sessionToken = try #require(browser.cookie("portico_session"))
            let path = logoutPath([
                ("client_id", client.id), ("post_logout_redirect_uri", sessionTestSignedOutURI), ("state", "s1"),
            ])

            let page = try await browser.get(path)
            #expect(page.status == 200)
            #expect(page.text.contains("Sign out of Portico?"))
            #expect(page.text.contains("Example App asked"))
            #expect(page.text.contains(#"name="decision" value="logout""#))
            #expect(page.text.contains(#"name="decision" value="stay""#))
            #expect(try provider.store.session(token: sessionToken) != nil)
            let fields = [
                ("csrf_token", try #require(page.hiddenField("csrf_token"))),
                ("client_id", try #require(page.hiddenField("client_id"))),
                ("post_logout_redirect_uri", try #require(page.hiddenField("post_logout_redirect_uri"))),
                ("state", try #require(page.hiddenField("state"))),
            ]

            let forged = try await browser.post(
                "/oauth/logout", [("csrf_token", "nope")] + fields.dropFirst() + [("decision", "logout")])
            #expect(forged.status == 403)
            // A post without a decision is an app's request like a GET: it asks again.
            let asked = try await browser.post("/oauth/logout", Array(fields.dropFirst()))
            #expect(asked.status == 200)
            #expect(asked.text.contains("Sign out of Portico?"))
            #expect(try provider.store.session(token: sessionToken) != nil)

            let stay = try await browser.post("/oauth/logout", fields + [("decision", "stay")])
            #expect(stay.status == 303)
            #expect(stay.location == sessionTestSignedOutURI + "?state=s1")
            #expect(try provider.store.session(token: sessionToken) != nil)

            let out = try await browser.post("/oauth/logout", fields + [("decision", "logout")])
            #expect(out.status == 303)
            #expect(out.location == sessionTestSignedOutURI + "?state=s1")
            #expect(try provider.store.session(token: sessionToken) == nil)
            #expect(browser.cookie("portico_session") == nil)
        }
    }

    @Test func anExpiredHintIsAcceptedButOneFromAnotherSignInAsks() async throws {
        try await ProviderHarness.with { provider in
            let user = try provider.addUser()
            let client = try provider.addLogoutClient()
            let browser = TestBrowser(base: provider.base)
            _ = try await sessionFirstAuthorization(browser, client: client, remember: true)
            let session = try #require(try provider.store.sessions(userID: user.id).first)
            let longAgo = Date().addingTimeInterval(-3 * 24 * 3600)

            func hint(authTime: Date) throws -> String {
                try provider.signWithProviderKey(
                    JWTClaims(
                        issuer: provider.issuer, subject: user.id, audience: [client.id],
                        expiresAt: longAgo.addingTimeInterval(3600), issuedAt: longAgo,
                        additionalClaims: ["auth_time": .integer(Int64(authTime.timeIntervalSince1970))]))
            }

            let otherSignIn = try await browser.get(
                logoutPath([
                    ("id_token_hint", try hint(authTime: longAgo)),
                    ("post_logout_redirect_uri", sessionTestSignedOutURI),
                ]))
            #expect(otherSignIn.status == 200)
            #expect(otherSignIn.text.contains("Sign out of Portico?"))

            let expired = try await browser.get(
                logoutPath([
                    ("id_token_hint", try hint(authTime: session.authTime)),
                    ("post_logout_redirect_uri", sessionTestSignedOutURI),
                ]))
            #expect(expired.status == 302)
            #expect(expired.location == sessionTestSignedOutURI)
            #expect(try provider.store.sessions(userID: user.id).isEmpty)
        }
    }

    @Test func badRequestsShowAPageAndNeverRedirect() async throws {
        try await ProviderHarness.with { provider in
            let user = try provider.addUser()
            let client = try provider.addLogoutClient()
            let other = try provider.addLogoutClient(name: "Other App")
            let browser = TestBrowser(base: provider.base)
            let idToken = try await signInAndGetIDToken(provider, browser, client: client)
            let pkce = PKCEPair()
            let code = try #require(
                try await browser.get(TestBrowser.authorizePath(client: client, pkce: pkce)).redirectParameters["code"])
            let accessToken = try #require(
                try await sessionRedeem(browser, client: client, code: code, pkce: pkce)["access_token"]?.stringValue)
            let foreignIssuer = try provider.signWithProviderKey(
                JWTClaims(
                    issuer: "https://evil.example", subject: user.id, audience: [client.id],
                    expiresAt: Date().addingTimeInterval(600), issuedAt: Date()))

            let cases: [([(String, String)], String)] = [
                ([("client_id", client.id), ("post_logout_redirect_uri", "https://evil.example/")], "Example App"),
                (
                    [("client_id", client.id), ("post_logout_redirect_uri", sessionTestSignedOutURI + "/x")],
                    "Example App"
                ),
                (
                    [("id_token_hint", idToken), ("post_logout_redirect_uri", "https://app.example/callback")],
                    "Example App"
                ),
                ([("post_logout_redirect_uri", sessionTestSignedOutURI)], "not valid"),
                ([("client_id", "unknown"), ("post_logout_redirect_uri", sessionTestSignedOutURI)], "not valid"),
                (
                    [("id_token_hint", "not.a.token"), ("post_logout_redirect_uri", sessionTestSignedOutURI)],
                    "not valid"
                ),
                ([("id_token_hint", accessToken), ("post_logout_redirect_uri", sessionTestSignedOutURI)], "not valid"),
                (
                    [("id_token_hint", foreignIssuer), ("post_logout_redirect_uri", sessionTestSignedOutURI)],
                    "not valid"
                ),
                (
                    [
                        ("id_token_hint", idToken), ("client_id", other.id),
                        ("post_logout_redirect_uri", sessionTestSignedOutURI),
                    ],
                    "not valid"
                ),
                ([("client_id", client.id), ("client_id", client.id)], "not valid"),
            ]
            for (parameters, words) in cases {
                let reply = try await browser.get(logoutPath(parameters))
                #expect(reply.status == 400, "\(parameters)")
                #expect(reply.location == nil)
                #expect(reply.text.contains(words), "\(parameters)")
            }
            #expect(try provider.store.sessions(userID: user.id).count == 1)
            let head = try await browser.post("/oauth/logout", [("state", "x"), ("decision", "maybe")])
            #expect(head.status == 403)
        }
    }

    @Test func withNobodySignedInItSaysSo() async throws {
        try await ProviderHarness.with { provider in
            let client = try provider.addLogoutClient()
            let browser = TestBrowser(base: provider.base)
            let page = try await browser.get("/oauth/logout")
            #expect(page.status == 200)
            #expect(page.text.contains("You are signed out"))
            let back = try await browser.get(
                logoutPath([
                    ("client_id", client.id), ("post_logout_redirect_uri", sessionTestSignedOutURI), ("state", "s"),
                ]))
            #expect(back.status == 302)
            #expect(back.location == sessionTestSignedOutURI + "?state=s")
        }
    }
}
