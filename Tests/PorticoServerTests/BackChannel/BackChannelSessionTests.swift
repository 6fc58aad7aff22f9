import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// Sign-outs of one browser among several, from Your Account, and Native SSO apps: each tells
/// the apps of the session that ended, with the `sid` their ID tokens carry, and no others.
@Suite struct BackChannelSessionTests {
    private static let exchange = "urn:ietf:params:oauth:grant-type:token-exchange"

    /// "Sign out" of another browser, then "sign out everywhere else", in Your Account: each
    /// ended session's apps hear of it with that session's sid; the browser kept stays.
    @Test func signingOtherBrowsersOutInYourAccountTellsTheirApps() async throws {
        try await ProviderHarness.with(configuration: backChannelConfiguration()) { provider in
            try provider.addUser()
            let receiver = try LogoutReceiver()
            let shop = try provider.addBackChannelClient(name: "Shop", receiver: receiver)
            let here = TestBrowser(base: provider.base)
            let phone = TestBrowser(base: provider.base)
            let tablet = TestBrowser(base: provider.base)
            var sids: [String] = []
            for browser in [here, phone, tablet] {
                let tokens = try await provider.authorizeAndRedeem(browser, client: shop)
                let claims = try await provider.idTokenClaims(try #require(tokens["id_token"]?.stringValue))
                sids.append(try #require(claims["sid"]?.stringValue))
            }
            #expect(Set(sids).count == 3)

            let page = try await here.get("/account")
            let csrf = try #require(page.hiddenField("csrf_token"))
            let handles = page.text.components(separatedBy: #"name="end_session" value=""#).dropFirst().map {
                String($0.prefix { $0 != "\"" })
            }
            #expect(handles.count == 2)
            _ = try await here.post("/account", [("csrf_token", csrf), ("end_session", try #require(handles.first))])
            let first = try await receiver.tokens(atLeast: 1)
            let firstSid = try await provider.verifiedLogoutToken(try #require(first.first), for: shop)["sid"]
            let ended = try #require(firstSid?.stringValue)
            #expect(sids.dropFirst().contains(ended))

            _ = try await here.post("/account", [("csrf_token", csrf), ("end_others", "1")])
            let all = try await receiver.tokens(atLeast: 2)
            try await provider.waitForEmptyOutbox()
            #expect(receiver.tokens.count == 2)
            var told: Set<String> = []
            for token in all {
                told.insert(try #require(try await provider.verifiedLogoutToken(token, for: shop)["sid"]?.stringValue))
            }
            #expect(told == Set(sids.dropFirst()))
        }
    }

    /// A password change signs the person's other browsers out, and their apps hear of it with
    /// the ended session's sid; the app of the browser that made the change is not told.
    @Test func aPasswordChangeTellsTheAppsOfTheOtherBrowsers() async throws {
        try await ProviderHarness.with(configuration: backChannelConfiguration()) { provider in
            try provider.addUser()
            let receiver = try LogoutReceiver()
            let shop = try provider.addBackChannelClient(name: "Shop", receiver: receiver)
            let here = TestBrowser(base: provider.base)
            let phone = TestBrowser(base: provider.base)
            var sids: [String] = []
            for browser in [here, phone] {
                let tokens = try await provider.authorizeAndRedeem(browser, client: shop)
                let claims = try await provider.idTokenClaims(try #require(tokens["id_token"]?.stringValue))
                sids.append(try #require(claims["sid"]?.stringValue))
            }
            let form = try await here.get(PasswordChangeEndpoint.path)
            let changed = try await here.post(
                PasswordChangeEndpoint.path,
                [
                    ("csrf_token", try #require(form.hiddenField("csrf_token"))),
                    ("current_password", ProviderHarness.defaultPassword),
                    ("password", "a fresh harbour lantern 42"), ("password_confirmation", "a fresh harbour lantern 42"),
                ])
            #expect(changed.status == 303, "\(changed.text)")
            let told = try await receiver.tokens(atLeast: 1)
            try await provider.waitForEmptyOutbox()
            #expect(receiver.tokens.count == 1)
            let sid = try await provider.verifiedLogoutToken(try #require(told.first), for: shop)["sid"]
            #expect(sid?.stringValue == sids[1])
        }
    }

    /// An app that got its tokens by Native SSO from another app's browser sign-in is told when
    /// that browser signs out, with the device session's sid its ID token carries.
    @Test func aNativeSSOAppIsToldWhenTheBrowserItCameFromSignsOut() async throws {
        try await ProviderHarness.with(configuration: backChannelConfiguration()) { provider in
            try provider.addUser()
            let receiver = try LogoutReceiver()
            var apps: [Client] = []
            for name in ["Mail", "Calendar"] {
                var client = Client(
                    name: name, type: .confidential, secret: "secret", redirectURIs: ["https://app.example/callback"],
                    allowedScopes: ["openid", "profile", "device_sso"],
                    allowedGrantTypes: ["authorization_code", "refresh_token", Self.exchange],
                    postLogoutRedirectURIs: [sessionTestSignedOutURI])
                client.ssoGroup = "vendor"
                client.backchannelLogoutURI = receiver.uri
                try provider.store.insert(client)
                apps.append(client)
            }
            let (mail, calendar) = (apps[0], apps[1])
            let browser = TestBrowser(base: provider.base)
            let tokens = try await provider.authorizeAndRedeem(
                browser, client: mail, scope: "openid profile device_sso")
            let idToken = try #require(tokens["id_token"]?.stringValue)
            let sid = try #require(try await provider.idTokenClaims(idToken)["sid"]?.stringValue)
            let exchanged = try await browser.post(
                "/oauth/token",
                [
                    ("grant_type", Self.exchange), ("subject_token", idToken),
                    ("subject_token_type", "urn:ietf:params:oauth:token-type:id_token"),
                    ("actor_token", try #require(tokens["device_secret"]?.stringValue)),
                    ("actor_token_type", "urn:openid:params:token-type:device-secret"),
                    ("audience", provider.issuer), ("client_id", calendar.id), ("client_secret", "secret"),
                ])
            #expect(exchanged.status == 200, "\(exchanged.text)")
            let calendarID = try await provider.idTokenClaims(try #require(exchanged.json["id_token"]?.stringValue))
            #expect(calendarID["sid"]?.stringValue == sid)

            var components = URLComponents()
            components.path = "/oauth/logout"
            components.queryItems = [
                URLQueryItem(name: "id_token_hint", value: idToken),
                URLQueryItem(name: "post_logout_redirect_uri", value: sessionTestSignedOutURI),
            ]
            #expect(try await browser.get(try #require(components.string)).status == 302)
            let told = try await receiver.tokens(atLeast: 2)
            try await provider.waitForEmptyOutbox()
            #expect(receiver.tokens.count == 2)
            #expect(Set(audiences(told)) == [mail.id, calendar.id])
            for token in told {
                let client = audiences([token]).first == mail.id ? mail : calendar
                #expect(try await provider.verifiedLogoutToken(token, for: client)["sid"]?.stringValue == sid)
            }
        }
    }
}
