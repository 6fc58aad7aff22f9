import Foundation
import PorticoCrypto
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

/// The console's further settings of an app, through the command line's checks: the scopes it
/// will ask for, pasted public keys (`private_key_jwt`, no secret), a back-channel logout URI
/// and Shared Signals; each kept on save, and a bad one refused with nothing changed.
@Suite struct DeveloperAppSettingsTests {
    static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

    @Test func scopesKeysLogoutAndSharedSignalsAreSetAndChangedThroughTheCommandLinesChecks() async throws {
        try await ProviderHarness.with { provider in
            _ = try provider.addUser()
            let browser = try await DeveloperConsoleTests.developer(provider)
            let key = try SigningKey.generate(.es256)
            let keys = JWKSet(keys: [key.publicJWK]).jsonString
            let form = try await browser.get("/developer/apps/new")
            #expect(form.text.contains(#"id="scope_openid" checked disabled"#))
            let csrf = try #require(form.hiddenField("csrf_token"))
            let fields: [(String, String)] = [
                ("csrf_token", csrf), ("name", "Keyed App"), ("app_type", "web"),
                ("redirect_uri", "https://keyed.example/callback"), ("web_origin", ""), ("logo_url", ""),
                ("privacy_url", ""), ("terms_url", "https://keyed.example/terms"), ("scope", "openid"),
                ("scope", "email"), ("jwks", keys),
                ("backchannel_logout_uri", "https://keyed.example/logout"), ("ssf", "yes"),
            ]
            // A logout URI the command line refuses: the same words, and no app.
            var bad = fields
            let logout = try #require(bad.firstIndex { $0.0 == "backchannel_logout_uri" })
            bad[logout] = ("backchannel_logout_uri", "http://keyed.example/logout")
            let refused = try await browser.post("/developer/apps/new", bad)
            #expect(refused.status == 400)
            #expect(refused.text.contains("keyed.example/logout"))
            let owner = try #require(try provider.store.user(email: ProviderHarness.defaultEmail))
            #expect(try provider.store.read { try $0.developerApps(userID: owner.id) }.isEmpty)

            let created = try await browser.post("/developer/apps/new", fields)
            #expect(created.status == 303)
            let location = try #require(created.location)
            let id = String(location.dropFirst("/developer/apps/".count))
            let page = try await browser.get(location)
            #expect(DeveloperConsoleTests.secret(on: page) == nil)
            let client = try #require(try provider.store.client(id: id))
            #expect(client.secretHash == nil)
            #expect(client.jwks != nil)
            #expect(Set(client.allowedScopes) == ["openid", "email", "ssf.manage"])
            #expect(client.allowedGrantTypes.contains("client_credentials"))
            #expect(client.backchannelLogoutURI == "https://keyed.example/logout")
            #expect(client.termsURL == "https://keyed.example/terms")
            #expect(page.text.contains(#"id="scope_email" name="scope" value="email" checked"#))
            #expect(!page.text.contains(#"value="postal_code" checked"#))
            #expect(page.text.contains(#"id="ssf" name="ssf" value="yes" checked"#))

            // The pasted key signs the app's client assertions.
            let now = provider.clock.now
            let assertion = JWS.sign(
                claims: JWTClaims(
                    issuer: id, subject: id, audience: [provider.issuer + "/oauth/token"],
                    expiresAt: now.addingTimeInterval(60), issuedAt: now, jwtID: UUID().uuidString),
                key: key)
            let tokens = try await provider.token(
                [
                    ("grant_type", "client_credentials"), ("scope", "ssf.manage"),
                    ("client_assertion_type", Self.assertionType), ("client_assertion", assertion),
                ], client: .none)
            #expect(tokens.status == 200, "\(tokens.text)")

            // Saving changes the scopes and turns Shared Signals off; the keys stay.
            var saved = fields
            saved[0] = ("csrf_token", try #require(page.hiddenField("csrf_token")))
            saved.removeAll { $0.0 == "ssf" || $0.0 == "app_type" }
            saved.removeAll { $0 == ("scope", "email") }
            saved.append(("scope", "postal_code"))
            saved.append(("action", "save"))
            let changed = try await browser.post(location, saved)
            #expect(changed.status == 303, "\(changed.text)")
            let after = try #require(try provider.store.client(id: id))
            #expect(Set(after.allowedScopes) == ["openid", "postal_code"])
            #expect(!after.allowedGrantTypes.contains("client_credentials"))
            #expect(after.jwks == client.jwks)

            // An app that signs with its keys cannot drop them for a secret it was never shown.
            var keyless = saved
            keyless.removeAll { $0.0 == "jwks" }
            keyless[0] = ("csrf_token", try #require(try await browser.get(location).hiddenField("csrf_token")))
            let kept = try await browser.post(location, keyless)
            #expect(kept.status == 400)
            #expect(try provider.store.client(id: id)?.secretHash == nil)
            #expect(try provider.store.client(id: id)?.jwks == client.jwks)
        }
    }
}
