import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Your Account (`/account`) over real HTTP.
@Suite struct AccountPageTests {
    @Test func signingInIsRequiredAndLeadsBackToTheAccount() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let browser = TestBrowser(base: provider.base)
            let first = try await browser.get("/account")
            #expect(first.status == 302)
            let loginLocation = try #require(first.location)
            #expect(loginLocation == "/login?return_to=%2Faccount")
            let login = try await browser.signIn(at: loginLocation)
            #expect(login.location == "/account")
            let page = try await browser.get("/account")
            #expect(page.status == 200)
            #expect(page.text.contains("Your Account"))
            #expect(page.text.contains("ann@example.com"))
            #expect(page.text.contains("id=\"no-apps\""))

            // Only local paths come back: anything else ends on Your Account.
            for target in ["//evil.example/x", "https://evil.example/", "/\\evil.example", "/a b"] {
                let other = TestBrowser(base: provider.base)
                let loginPage = try await other.get("/login?return_to=" + AuthorizationResponseEncoding.encode(target))
                #expect(!loginPage.text.contains("evil.example"))
                let reply = try await other.post(
                    "/login",
                    [
                        ("csrf_token", try #require(loginPage.hiddenField("csrf_token"))), ("email", "ann@example.com"),
                        ("password", "correct horse"), ("return_to", target),
                    ])
                #expect(reply.location == "/account", "\(target)")
            }
        }
    }

    @Test func removingAnAppRevokesConsentAndRefreshTokens() async throws {
        try await ProviderHarness.with { provider in
            let user = try provider.addUser()
            let client = try provider.addLogoutClient()
            let kept = try provider.addClient(name: "Kept App")
            let browser = TestBrowser(base: provider.base)
            let pkce = PKCEPair()
            let done = try await sessionFirstAuthorization(
                browser, client: client, pkce: pkce, scope: "openid profile postal_code", remember: false)
            let tokens = try await sessionRedeem(
                browser, client: client, code: try #require(done.redirectParameters["code"]), pkce: pkce)
            let refreshToken = try #require(tokens["refresh_token"]?.stringValue)
            let accessToken = try #require(tokens["access_token"]?.stringValue)
            #expect(try await userInfoStatus(provider.base, accessToken) == 200)
            _ = try await browser.authorizeWithConsent(client: kept)

            let page = try await browser.get("/account")
            #expect(page.status == 200)
            #expect(page.text.contains("Example App"))
            #expect(page.text.contains("Kept App"))
            #expect(page.text.contains(#"src="https://app.example/logo.png""#))
            #expect(page.text.contains("See your name, e-mail address and account ID"))
            #expect(page.text.contains("See the postal code of your address"))
            #expect(page.text.contains("Allowed "))
            #expect(page.text.contains(#"name="revoke" value="\#(client.id)""#))
            let csrf = try #require(page.hiddenField("csrf_token"))

            let forged = try await browser.post("/account", [("csrf_token", "nope"), ("revoke", client.id)])
            #expect(forged.status == 403)
            #expect(try provider.store.read { try $0.consent(userID: user.id, clientID: client.id) } != nil)

            let removed = try await browser.post("/account", [("csrf_token", csrf), ("revoke", client.id)])
            #expect(removed.status == 303)
            #expect(removed.location == "/account?done=removed")
            #expect(try provider.store.read { try $0.consent(userID: user.id, clientID: client.id) } == nil)
            #expect(try provider.store.read { try $0.consent(userID: user.id, clientID: kept.id) } != nil)
            let (status, error) = try await sessionRefresh(browser, client: client, refreshToken: refreshToken)
            #expect(status == 400)
            #expect(error == "invalid_grant")
            // The access token issued before the removal stops working too.
            #expect(try await userInfoStatus(provider.base, accessToken) == 401)
            let events = try provider.store.read { try $0.recentAuditEvents(limit: 10) }
            #expect(events.contains { $0.action == "consent.revoke" && $0.subject == client.id && $0.actor == user.id })

            let after = try await browser.get("/account?done=removed")
            #expect(after.text.contains("The app was removed"))
            #expect(!after.text.contains(#"value="\#(client.id)""#))
            let again = try await browser.get(TestBrowser.authorizePath(client: client))
            #expect(try #require(again.location).hasPrefix("/consent?"))
        }
    }

    @Test func anotherSessionCanBeSignedOutByItsHandle() async throws {
        try await ProviderHarness.with { provider in
            let user = try provider.addUser()
            let here = TestBrowser(base: provider.base)
            let phone = TestBrowser(base: provider.base)
            let tablet = TestBrowser(base: provider.base)
            for browser in [here, phone, tablet] {
                let login = try await browser.signIn(at: "/login", remember: browser === phone)
                #expect(login.location == "/account")
            }
            let phoneToken = try #require(phone.cookie("portico_session"))
            let sessions = try provider.store.sessions(userID: user.id)
            #expect(sessions.count == 3)

            let page = try await here.get("/account")
            #expect(page.text.components(separatedBy: "This device").count == 2)
            #expect(page.text.contains("Kept signed in"))
            #expect(page.text.contains("127.0.0.1"))
            let handles = page.text.components(separatedBy: #"name="end_session" value=""#).dropFirst().map {
                String($0.prefix { $0 != "\"" })
            }
            #expect(handles.count == 2)
            for session in sessions { #expect(!page.text.contains(session.hashedID)) }
            #expect(!page.text.contains(phoneToken))
            let csrf = try #require(page.hiddenField("csrf_token"))

            let bogus = try await here.post("/account", [("csrf_token", csrf), ("end_session", "bogus")])
            #expect(bogus.status == 303)
            #expect(try provider.store.sessions(userID: user.id).count == 3)

            let phoneHashedID = try #require(try provider.store.session(token: phoneToken)).hashedID
            // The phone's handle as this page derives it (sessions created in one second have no
            // fixed order on the page, so the handles are not told apart by position).
            let hereToken = try #require(here.cookie("portico_session"))
            let phoneHandle = Base64URL.encode(
                HMAC.authenticationCode(for: Array("session:\(phoneHashedID)".utf8), key: Array(hereToken.utf8)))
            #expect(handles.contains(phoneHandle))
            _ = try await here.post("/account", [("csrf_token", csrf), ("end_session", phoneHandle)])
            #expect(try provider.store.session(token: phoneToken) == nil)
            #expect(try provider.store.sessions(userID: user.id).count == 2)
            #expect(!(try provider.store.sessions(userID: user.id).contains { $0.hashedID == phoneHashedID }))
            let phoneAgain = try await phone.get("/account")
            #expect(phoneAgain.status == 302)

            let everywhere = try await here.post("/account", [("csrf_token", csrf), ("end_others", "1")])
            #expect(everywhere.location == "/account?done=signed_out_others")
            let remaining = try provider.store.sessions(userID: user.id)
            #expect(remaining.count == 1)
            #expect(
                remaining.first?.hashedID
                    == (try provider.store.session(token: try #require(here.cookie("portico_session"))))?.hashedID)
            let events = try provider.store.read { try $0.recentAuditEvents(limit: 10) }
            #expect(events.contains { $0.action == "session.end_other" })
            #expect(events.contains { $0.action == "session.end_others" })
        }
    }

    @Test func signOutEndsThisSession() async throws {
        try await ProviderHarness.with { provider in
            let user = try provider.addUser()
            let browser = TestBrowser(base: provider.base)
            _ = try await browser.signIn(at: "/login", remember: true)
            let page = try await browser.get("/account")
            #expect(page.text.contains(#"name="sign_out""#))
            let out = try await browser.post(
                "/account", [("csrf_token", try #require(page.hiddenField("csrf_token"))), ("sign_out", "1")])
            #expect(out.status == 303)
            #expect(out.location == "/oauth/logout")
            #expect(try #require(out.setCookie("portico_session")).contains("Max-Age=0"))
            #expect(out.header("Set-Login") == "logged-out")
            #expect(try #require(out.setCookie("portico_fedcm")).contains("Max-Age=0"))
            #expect(try provider.store.sessions(userID: user.id).isEmpty)
            let signedOut = try await browser.get(try #require(out.location))
            #expect(signedOut.text.contains("You are signed out"))
            let anonymous = try await TestBrowser(base: provider.base).post("/account", [("revoke", "x")])
            #expect(anonymous.status == 303)
        }
    }
}

/// Percent-encoding for a query value in tests.
enum AuthorizationResponseEncoding {
    static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

/// The status of a userinfo call with `accessToken` (a plain session: a Bearer challenge does
/// not trip Linux URLSession's authentication handling).
private func userInfoStatus(_ base: String, _ accessToken: String) async throws -> Int {
    var request = URLRequest(url: try #require(URL(string: base + "/oauth/userinfo")))
    request.setValue("Bearer " + accessToken, forHTTPHeaderField: "Authorization")
    let (_, response) = try await URLSession.shared.data(for: request)
    return try #require(response as? HTTPURLResponse).statusCode
}
