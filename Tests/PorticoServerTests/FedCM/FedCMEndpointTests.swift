import Foundation
import PorticoCrypto
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

/// FedCM's identity-provider endpoints over real HTTP on SQLite (DESIGN, "FedCM"): the
/// `Sec-Fetch-Dest` gate on each, the app's origin and CORS for it alone, the accounts of a
/// signed-in and a signed-out browser, the code redeemed without `redirect_uri`, remembered
/// consent (`approved_clients`) and its disconnect, the consent popup, and the Login Status
/// headers of sign-in and sign-out.
@Suite struct FedCMEndpointTests {
    static let origin = "http://127.0.0.1:5173"
    static let otherOrigin = "https://other.example"
    static let fedcm = ["Sec-Fetch-Dest": "webidentity"]

    /// A public web app with `origins` registered as `portico client add --web-origin` does.
    static func webApp(_ provider: ProviderHarness, name: String = "Web App", origins: [String] = [origin]) throws
        -> Client
    {
        let client = try provider.addClient(
            name: name, type: .public, redirectURIs: ["http://127.0.0.1/callback"],
            scopes: ["openid", "profile", "email", "postal_code"])
        try provider.store.transaction { try $0.setClientWebOrigins(clientID: client.id, webOrigins: origins) }
        return client
    }

    /// A browser signed in as Ann.
    static func signedIn(_ provider: ProviderHarness) async throws -> TestBrowser {
        let browser = provider.browser()
        let login = try await browser.signIn(at: "/login")
        #expect(login.status == 303)
        return browser
    }

    /// The cookies `browser` holds, as a `Cookie` header.
    static func cookies(_ browser: TestBrowser) -> String {
        ["portico_session", "portico_fedcm"].compactMap { name in browser.cookie(name).map { "\(name)=\($0)" } }
            .joined(separator: "; ")
    }

    /// Only the FedCM cookie (what the browser sends cross-site).
    static func fedcmCookie(_ browser: TestBrowser) throws -> [String: String] {
        ["Cookie": "portico_fedcm=\(try #require(browser.cookie("portico_fedcm")))"]
    }

    /// Posts to the assertion endpoint as Chromium does.
    static func assert(
        _ provider: ProviderHarness, client: Client, account: String, cookie: [String: String],
        origin: String? = origin,
        pkce: PKCEPair, scope: String = "openid profile email", disclosed: Bool = true, nonce: String = "n-0S6",
        fedcm: Bool = true
    ) async throws -> TestReply {
        var headers = cookie
        if fedcm { headers["Sec-Fetch-Dest"] = "webidentity" }
        if let origin { headers["Origin"] = origin }
        let params = JSONValue.object([
            "code_challenge": .string(pkce.challenge), "code_challenge_method": "S256", "scope": .string(scope),
        ]).jsonString
        return try await provider.request(
            "POST", "/fedcm/assertion",
            form: [
                ("client_id", client.id), ("account_id", account), ("nonce", nonce),
                ("disclosure_text_shown", disclosed ? "true" : "false"), ("is_auto_selected", "false"),
                ("params", params),
            ], headers: headers)
    }

    /// The FedCM error code of `reply`.
    static func errorCode(_ reply: TestReply) -> String? {
        reply.json["error"]?.objectValue?["code"]?.stringValue
    }

    @Test func everyEndpointRefusesARequestWithoutSecFetchDest() async throws {
        try await ProviderHarness.with { provider in
            let user = try provider.addUser()
            let client = try Self.webApp(provider)
            let browser = try await Self.signedIn(provider)
            let cookie = try Self.fedcmCookie(browser)
            let gets = [
                "/.well-known/web-identity", "/fedcm/config.json", "/fedcm/accounts",
                "/fedcm/client_metadata?client_id=\(client.id)",
            ]
            for path in gets {
                let bare = try await provider.request("GET", path, headers: cookie)
                #expect(bare.status == 400, "\(path)")
                #expect(Self.errorCode(bare) == "invalid_request", "\(path)")
                let image = try await provider.request("GET", path, headers: cookie.with(["Sec-Fetch-Dest": "image"]))
                #expect(image.status == 400, "\(path)")
                let browserFetch = try await provider.request("GET", path, headers: cookie.with(Self.fedcm))
                #expect(browserFetch.status == 200, "\(path) \(browserFetch.text)")
            }
            let pkce = PKCEPair()
            let assertion = try await Self.assert(
                provider, client: client, account: user.id, cookie: cookie, pkce: pkce, fedcm: false)
            #expect(assertion.status == 400)
            #expect(Self.errorCode(assertion) == "invalid_request")
            #expect(assertion.header("Access-Control-Allow-Origin") == nil)
            #expect(try provider.store.read { try $0.consent(userID: user.id, clientID: client.id) } == nil)
            let disconnect = try await provider.request(
                "POST", "/fedcm/disconnect", form: [("client_id", client.id), ("account_hint", user.id)],
                headers: cookie.with(["Origin": Self.origin]))
            #expect(disconnect.status == 400)
            #expect(Self.errorCode(disconnect) == "invalid_request")
        }
    }

    @Test func theConfigNamesEveryEndpointAndABrandIcon() async throws {
        try await ProviderHarness.with { provider in
            let known = try await provider.request("GET", "/.well-known/web-identity", headers: Self.fedcm)
            #expect(known.json["provider_urls"]?.arrayValue == [.string(provider.issuer + "/fedcm/config.json")])
            // Chromium wants these two in the well-known file of a provider with client metadata.
            #expect(known.string("accounts_endpoint") == provider.issuer + "/fedcm/accounts")
            #expect(known.string("login_url") == provider.issuer + "/fedcm/login")
            let config = try await provider.request("GET", "/fedcm/config.json", headers: Self.fedcm)
            for (name, path) in [
                ("accounts_endpoint", "/fedcm/accounts"), ("client_metadata_endpoint", "/fedcm/client_metadata"),
                ("id_assertion_endpoint", "/fedcm/assertion"), ("disconnect_endpoint", "/fedcm/disconnect"),
                ("login_url", "/fedcm/login"),
            ] {
                #expect(config.string(name) == provider.issuer + path)
            }
            let branding = try #require(config.json["branding"]?.objectValue)
            #expect(branding["background_color"]?.stringValue == "#131921")
            let icon = try #require(branding["icons"]?.arrayValue?.first?.objectValue?["url"]?.stringValue)
            let png = try await provider.get(String(icon.dropFirst(provider.issuer.count)))
            #expect(png.status == 200)
            #expect(png.header("Content-Type") == "image/png")
            #expect(Array(png.body.prefix(4)) == [0x89, 0x50, 0x4E, 0x47])
        }
    }

    @Test func clientMetadataLinksTheAppsPrivacyPolicyAndTerms() async throws {
        try await ProviderHarness.with { provider in
            let plain = try Self.webApp(provider)
            let bare = try await provider.request(
                "GET", "/fedcm/client_metadata?client_id=\(plain.id)", headers: Self.fedcm)
            #expect(bare.status == 200)
            #expect(bare.json["terms_of_service_url"] == nil)
            var client = try Self.webApp(provider, name: "Linked App")
            client.privacyURL = "https://app.example/privacy"
            client.termsURL = "https://app.example/terms"
            try provider.store.writeOne { try $0.update(client) }
            let linked = try await provider.request(
                "GET", "/fedcm/client_metadata?client_id=\(client.id)", headers: Self.fedcm)
            #expect(linked.string("privacy_policy_url") == "https://app.example/privacy")
            #expect(linked.string("terms_of_service_url") == "https://app.example/terms")
        }
    }

    @Test func aSignedOutBrowserGetsNoAccounts() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let signedOut = try await provider.request("GET", "/fedcm/accounts", headers: Self.fedcm)
            #expect(signedOut.status == 401)
            #expect(Self.errorCode(signedOut) == "access_denied")
            let forged = try await provider.request(
                "GET", "/fedcm/accounts",
                headers: Self.fedcm.merging(["Cookie": "portico_fedcm=\(String(repeating: "A", count: 43))"]) { $1 })
            #expect(forged.status == 401)
            let browser = try await Self.signedIn(provider)
            let accounts = try await provider.request(
                "GET", "/fedcm/accounts", headers: Self.fedcm.with(try Self.fedcmCookie(browser)))
            #expect(accounts.status == 200)
            let account = try #require(accounts.json["accounts"]?.arrayValue?.first?.objectValue)
            #expect(account["email"]?.stringValue == ProviderHarness.defaultEmail)
            #expect(account["name"]?.stringValue == "Ann Example")
            #expect(account["given_name"]?.stringValue == "Ann")
            #expect(account["approved_clients"]?.arrayValue == [])
        }
    }

    @Test func theAssertionNeedsTheAppsOwnOriginAndAnswersCORSForItAlone() async throws {
        try await ProviderHarness.with { provider in
            let user = try provider.addUser()
            let client = try Self.webApp(provider)
            let other = try Self.webApp(provider, name: "Other App", origins: [Self.otherOrigin])
            let browser = try await Self.signedIn(provider)
            let cookie = try Self.fedcmCookie(browser)
            let pkce = PKCEPair()
            for origin in [nil, "https://evil.example", Self.otherOrigin, "http://127.0.0.1:5174"] {
                let refused = try await Self.assert(
                    provider, client: client, account: user.id, cookie: cookie, origin: origin, pkce: pkce)
                #expect(refused.status == 403, "\(origin ?? "none")")
                #expect(Self.errorCode(refused) == "unauthorized_client")
                #expect(refused.header("Access-Control-Allow-Origin") == nil)
                #expect(refused.header("Access-Control-Allow-Credentials") == nil)
            }
            let unknown = try await provider.request(
                "POST", "/fedcm/assertion", form: [("client_id", "no-such-app"), ("account_id", user.id)],
                headers: cookie.with(Self.fedcm).with(["Origin": Self.origin]))
            #expect(unknown.status == 403)
            #expect(unknown.header("Access-Control-Allow-Origin") == nil)
            // Another app's origin for this app, and this app's origin for another app.
            let crossed = try await Self.assert(
                provider, client: other, account: user.id, cookie: cookie, origin: Self.origin, pkce: pkce)
            #expect(crossed.status == 403)
            #expect(try provider.store.read { try $0.consents(userID: user.id) }.isEmpty)

            #expect(try provider.portico(["client", "suspend", client.id]).status == 0)
            let whileSuspended = try await Self.assert(
                provider, client: client, account: user.id, cookie: cookie, pkce: pkce)
            #expect(whileSuspended.status == 403)
            #expect(whileSuspended.header("Access-Control-Allow-Origin") == nil)
            #expect(try provider.store.read { try $0.consents(userID: user.id) }.isEmpty)
            #expect(try provider.portico(["client", "resume", client.id]).status == 0)
            let wrongAccount = try await Self.assert(
                provider, client: client, account: "someone-else", cookie: cookie, pkce: pkce)
            #expect(wrongAccount.status == 401)
            // Refused after the origin was found to be the app's: the app may read why.
            #expect(wrongAccount.header("Access-Control-Allow-Origin") == Self.origin)
            let granted = try await Self.assert(provider, client: client, account: user.id, cookie: cookie, pkce: pkce)
            #expect(granted.status == 200, "\(granted.text)")
            #expect(granted.string("token") != nil)
            #expect(granted.header("Access-Control-Allow-Origin") == Self.origin)
            #expect(granted.header("Access-Control-Allow-Credentials") == "true")
        }
    }

    @Test func theConsoleAppsOriginsServeTheSameCheck() async throws {
        try await ProviderHarness.with { provider in
            let user = try provider.addUser()
            let console = try await DeveloperConsoleTests.developer(provider)
            let (clientID, _) = try await DeveloperConsoleTests.createWebApp(console)
            let client = try #require(try provider.store.read { try $0.client(id: clientID) })
            let browser = try await Self.signedIn(provider)
            let reply = try await Self.assert(
                provider, client: client, account: user.id, cookie: try Self.fedcmCookie(browser),
                origin: "https://app.example", pkce: PKCEPair())
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.header("Access-Control-Allow-Origin") == "https://app.example")
        }
    }

    @Test func theCodeIsRedeemedWithoutRedirectURIAndOnlySo() async throws {
        try await ProviderHarness.with { provider in
            let user = try provider.addUser()
            let client = try Self.webApp(provider)
            let browser = try await Self.signedIn(provider)
            let cookie = try Self.fedcmCookie(browser)
            func code(_ pkce: PKCEPair) async throws -> String {
                let reply = try await Self.assert(
                    provider, client: client, account: user.id, cookie: cookie, pkce: pkce)
                return try #require(reply.string("token"))
            }
            let pkce = PKCEPair()
            let first = try await code(pkce)
            let withRedirect = try await provider.token(
                [
                    ("grant_type", "authorization_code"), ("code", first), ("code_verifier", pkce.verifier),
                    ("redirect_uri", "http://127.0.0.1/callback"),
                ], client: .id(client.id))
            #expect(withRedirect.status == 400)
            #expect(withRedirect.string("error") == "invalid_grant")
            let wrongVerifier = try await provider.token(
                [("grant_type", "authorization_code"), ("code", first), ("code_verifier", PKCEPair().verifier)],
                client: .id(client.id))
            #expect(wrongVerifier.string("error") == "invalid_grant")
            let redeemed = try await provider.token(
                [("grant_type", "authorization_code"), ("code", first), ("code_verifier", pkce.verifier)],
                client: .id(client.id))
            #expect(redeemed.status == 200, "\(redeemed.text)")
            let idToken = try #require(redeemed.string("id_token"))
            let claims = try (try await provider.jwksVerifier()).verify(idToken, algorithms: [.rs256]).claims()
            #expect(claims["nonce"]?.stringValue == "n-0S6")
            #expect(claims.subject == user.id)
            #expect(redeemed.string("scope") == "openid profile email")

            // A code of the redirect flow still needs its redirect_uri.
            let normal = try provider.issueCode(for: client, user: user, scopes: ["openid"])
            let bare = try await provider.token(
                [("grant_type", "authorization_code"), ("code", normal.code), ("code_verifier", normal.verifier)],
                client: .id(client.id))
            #expect(bare.status == 400)
            #expect(bare.string("error") == "invalid_request")
            #expect(try await provider.redeem(normal, client: .id(client.id)).status == 200)
        }
    }

    @Test func pkceS256IsRequired() async throws {
        try await ProviderHarness.with { provider in
            let user = try provider.addUser()
            let client = try Self.webApp(provider)
            let browser = try await Self.signedIn(provider)
            let headers = try Self.fedcmCookie(browser).with(Self.fedcm).with(["Origin": Self.origin])
            let plain = JSONValue.object([
                "code_challenge": .string(PKCEPair().challenge), "code_challenge_method": "plain",
            ]).jsonString
            let short = #"{"code_challenge":"abc","code_challenge_method":"S256"}"#
            for params in [#"{"scope":"openid"}"#, plain, short, "[1]", "{"] {
                let reply = try await provider.request(
                    "POST", "/fedcm/assertion",
                    form: [("client_id", client.id), ("account_id", user.id), ("params", params)], headers: headers)
                #expect(reply.status == 400, "\(params)")
                #expect(Self.errorCode(reply) == "invalid_request")
            }
            #expect(try provider.store.read { try $0.consents(userID: user.id) }.isEmpty)
        }
    }

    @Test func consentIsRememberedAsApprovedClientsAndDisconnectForgetsIt() async throws {
        try await ProviderHarness.with { provider in
            let user = try provider.addUser()
            let client = try Self.webApp(provider)
            let browser = try await Self.signedIn(provider)
            let cookie = try Self.fedcmCookie(browser)
            func approved() async throws -> [JSONValue]? {
                let accounts = try await provider.request(
                    "GET", "/fedcm/accounts", headers: cookie.with(Self.fedcm))
                return accounts.json["accounts"]?.arrayValue?.first?.objectValue?["approved_clients"]?.arrayValue
            }
            // Without the browser's disclosure a first sign-in goes to Portico's consent.
            let undisclosed = try await Self.assert(
                provider, client: client, account: user.id, cookie: cookie, pkce: PKCEPair(), disclosed: false)
            #expect(undisclosed.string("continue_on") != nil)
            #expect(try await approved() == [])
            let pkce = PKCEPair()
            let first = try await Self.assert(provider, client: client, account: user.id, cookie: cookie, pkce: pkce)
            let code = try #require(first.string("token"))
            #expect(try await approved() == [.string(client.id)])
            let tokens = try await provider.token(
                [("grant_type", "authorization_code"), ("code", code), ("code_verifier", pkce.verifier)],
                client: .id(client.id))
            let accessToken = try #require(tokens.string("access_token"), "\(tokens.text)")
            #expect(try await provider.get("/oauth/userinfo", bearer: accessToken).status == 200)
            // Returning: no disclosure needed.
            let again = try await Self.assert(
                provider, client: client, account: user.id, cookie: cookie, pkce: PKCEPair(), disclosed: false)
            #expect(again.string("token") != nil)

            let wrongOrigin = try await provider.request(
                "POST", "/fedcm/disconnect", form: [("client_id", client.id), ("account_hint", user.id)],
                headers: cookie.with(Self.fedcm).with(["Origin": Self.otherOrigin]))
            #expect(wrongOrigin.status == 403)
            #expect(try await approved() == [.string(client.id)])
            let disconnect = try await provider.request(
                "POST", "/fedcm/disconnect", form: [("client_id", client.id), ("account_hint", user.email)],
                headers: cookie.with(Self.fedcm).with(["Origin": Self.origin]))
            #expect(disconnect.status == 200, "\(disconnect.text)")
            #expect(disconnect.string("account_id") == user.id)
            #expect(disconnect.header("Access-Control-Allow-Origin") == Self.origin)
            #expect(try await approved() == [])
            #expect(try provider.store.read { try $0.consent(userID: user.id, clientID: client.id) } == nil)
            // The grant ends as with Remove in Your Account: the tokens the app holds stop working.
            #expect(try await provider.get("/oauth/userinfo", bearer: accessToken).status == 401)
            let refreshToken = try #require(tokens.string("refresh_token"), "\(tokens.text)")
            let refreshed = try await provider.token(
                [("grant_type", "refresh_token"), ("refresh_token", refreshToken)], client: .id(client.id))
            #expect(refreshed.string("error") == "invalid_grant", "\(refreshed.text)")
        }
    }

    @Test func scopesBeyondTheDisclosureGoThroughPorticosConsentPopup() async throws {
        try await ProviderHarness.with { provider in
            let user = try provider.addUser()
            let client = try Self.webApp(provider)
            let browser = try await Self.signedIn(provider)
            let pkce = PKCEPair()
            let reply = try await Self.assert(
                provider, client: client, account: user.id, cookie: try Self.fedcmCookie(browser), pkce: pkce,
                scope: "openid email postal_code")
            let location = try #require(reply.string("continue_on"))
            #expect(location.hasPrefix(provider.issuer + "/fedcm/continue?"))
            #expect(reply.header("Access-Control-Allow-Origin") == Self.origin)
            let page = try await browser.get(location)
            #expect(page.status == 200)
            #expect(page.text.contains("Web App"))
            let csrf = try #require(page.hiddenField("csrf_token"))
            var fields = [("csrf_token", csrf), ("decision", "allow")]
            for name in ["client_id", "scope", "code_challenge", "nonce"] {
                fields.append((name, try #require(page.hiddenField(name))))
            }
            let forged = try await browser.post(
                "/fedcm/continue", fields.map { $0.0 == "csrf_token" ? ($0.0, "x") : $0 })
            #expect(forged.status == 403)
            #expect(try provider.store.read { try $0.consent(userID: user.id, clientID: client.id) } == nil)
            let done = try await browser.post("/fedcm/continue", fields)
            #expect(done.status == 200)
            #expect(done.text.contains("/fedcm/fedcm.js"))
            let token = try #require(
                done.text.range(of: #"data-token=""#).map { String(done.text[$0.upperBound...].prefix { $0 != "\"" }) })
            let redeemed = try await provider.token(
                [("grant_type", "authorization_code"), ("code", token), ("code_verifier", pkce.verifier)],
                client: .id(client.id))
            #expect(redeemed.status == 200, "\(redeemed.text)")
            #expect(redeemed.string("scope") == "openid email postal_code")
            let consent = try provider.store.read { try $0.consent(userID: user.id, clientID: client.id) }
            #expect(consent?.scopes == ["openid", "email", "postal_code"])
        }
    }

    @Test func signInAndSignOutAnswerTheLoginStatus() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let browser = provider.browser()
            let login = try await browser.signIn(at: "/login")
            #expect(login.header("Set-Login") == "logged-in")
            let cookie = try #require(login.setCookie("portico_fedcm"))
            #expect(cookie.contains("SameSite=None"))
            #expect(cookie.contains("Secure"))
            #expect(cookie.contains("Path=/fedcm/"))
            #expect(cookie.contains("HttpOnly"))
            #expect(browser.cookie("portico_fedcm") == browser.cookie("portico_session"))
            let popup = try await browser.get("/fedcm/login")
            #expect(popup.status == 200)
            #expect(popup.header("Set-Login") == "logged-in")
            #expect(popup.text.contains(#"id="fedcm-done""#))

            let page = try await browser.get("/oauth/logout")
            let out = try await browser.post(
                "/oauth/logout", [("csrf_token", try #require(page.hiddenField("csrf_token"))), ("decision", "logout")])
            #expect(out.header("Set-Login") == "logged-out")
            #expect(browser.cookie("portico_fedcm") == nil)
            let signedOut = try await browser.get("/fedcm/login")
            #expect(signedOut.location == "/login?return_to=%2Ffedcm%2Flogin")
            #expect(signedOut.header("Set-Login") == nil)
        }
    }
}

extension Dictionary where Key == String, Value == String {
    /// These headers with `other`'s added (`other` wins).
    fileprivate func with(_ other: [String: String]) -> [String: String] { merging(other) { $1 } }
}
