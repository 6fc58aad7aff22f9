import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// Native SSO through the real pages: a person signs in to one app of a group in a browser
/// (authorization endpoint, sign-in, consent), another app exchanges that sign-in, and signing
/// the browser out with RP-initiated logout ends both apps' tokens.
@Suite struct NativeSSOSignOutTests {
    private static let grant = "urn:ietf:params:oauth:grant-type:token-exchange"

    private func addApp(_ provider: ProviderHarness, name: String) throws -> Client {
        var client = Client(
            name: name, type: .confidential, secret: "secret", redirectURIs: ["https://app.example/callback"],
            allowedScopes: ["openid", "profile", "device_sso"],
            allowedGrantTypes: ["authorization_code", "refresh_token", Self.grant],
            postLogoutRedirectURIs: [sessionTestSignedOutURI])
        client.ssoGroup = "vendor"
        try provider.store.insert(client)
        return client
    }

    private func exchange(
        _ browser: TestBrowser, as client: Client, idToken: String, deviceSecret: String, issuer: String
    ) async throws -> TestReply {
        try await browser.post(
            "/oauth/token",
            [
                ("grant_type", Self.grant), ("subject_token", idToken),
                ("subject_token_type", "urn:ietf:params:oauth:token-type:id_token"), ("actor_token", deviceSecret),
                ("actor_token_type", "urn:openid:params:token-type:device-secret"), ("audience", issuer),
                ("client_id", client.id), ("client_secret", "secret"),
            ])
    }

    @Test func signingTheBrowserOutEndsEveryAppsTokens() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let mail = try addApp(provider, name: "Mail")
            let calendar = try addApp(provider, name: "Calendar")
            let browser = TestBrowser(base: provider.base)
            let pkce = PKCEPair()
            let done = try await sessionFirstAuthorization(
                browser, client: mail, pkce: pkce, scope: "openid profile device_sso", remember: true)
            let code = try #require(done.redirectParameters["code"])
            let tokens = try await sessionRedeem(browser, client: mail, code: code, pkce: pkce)
            let idToken = try #require(tokens["id_token"]?.stringValue)
            let deviceSecret = try #require(tokens["device_secret"]?.stringValue)
            let mailRefresh = try #require(tokens["refresh_token"]?.stringValue)

            let exchanged = try await exchange(
                browser, as: calendar, idToken: idToken, deviceSecret: deviceSecret, issuer: provider.issuer)
            #expect(exchanged.status == 200, "\(exchanged.text)")
            let calendarTokens = try #require(JSONValue(parsing: Array(exchanged.text.utf8))?.objectValue)
            let calendarRefresh = try #require(calendarTokens["refresh_token"]?.stringValue)

            var components = URLComponents()
            components.path = "/oauth/logout"
            components.queryItems = [
                URLQueryItem(name: "id_token_hint", value: idToken),
                URLQueryItem(name: "post_logout_redirect_uri", value: sessionTestSignedOutURI),
            ]
            let logout = try await browser.get(try #require(components.string))
            #expect(logout.status == 302)

            let after = try await exchange(
                browser, as: calendar, idToken: idToken, deviceSecret: deviceSecret, issuer: provider.issuer)
            #expect(after.status == 400)
            #expect(after.text.contains("invalid_grant"))
            #expect(try await sessionRefresh(browser, client: mail, refreshToken: mailRefresh).1 == "invalid_grant")
            #expect(
                try await sessionRefresh(browser, client: calendar, refreshToken: calendarRefresh).1 == "invalid_grant")
        }
    }
}
