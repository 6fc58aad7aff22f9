import Foundation
import PorticoCrypto
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

/// Who may use the companion endpoints and the `companion` scope, and what bad input gets.
@Suite struct CompanionAccessTests {
    @Test func onlyALiveCompanionSessionsTokenIsAccepted() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let app = try harness.addClient(name: "Test Shop")
            let agent = try await TestCompanion.signIn(harness, client: try TestCompanion.register(in: harness))
            let form = TestCompanion.request(for: app, pkce: PKCEPair())

            let none = try await harness.request("POST", "/oauth/companion/authorize", form: form)
            #expect(none.status == 401)
            #expect(none.header("WWW-Authenticate") == #"Bearer realm="portico""#)
            let garbage = try await agent.authorize(form, bearer: "not-a-token")
            #expect(garbage.status == 401)
            #expect(garbage.string("error") == "invalid_token")
            #expect(garbage.header("WWW-Authenticate")?.contains(#"error="invalid_token""#) == true)

            // An ordinary app's token, even the person's own.
            let ordinary = try await harness.signIn(
                user, to: app, scopes: ["openid", "profile"], credentials: .post(id: app.id, secret: "secret"))
            let appToken = try #require(ordinary.string("access_token"))
            let refused = try await agent.authorize(form, bearer: appToken)
            #expect(refused.status == 403)
            #expect(refused.string("error") == "insufficient_scope")
            #expect(refused.header("WWW-Authenticate")?.contains(#"scope="companion""#) == true)
            #expect(try await agent.decide("x", "allow", bearer: appToken).status == 403)

            // The companion's own token without the companion scope.
            let narrowed = try await harness.refresh(agent.refreshToken, client: .id(agent.client.id), scope: "openid")
            let withoutScope = try #require(narrowed.string("access_token"))
            #expect(try await agent.authorize(form, bearer: withoutScope).status == 403)
        }
    }

    @Test func aCompanionScopedTokenOfAnotherClientIsRefused() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let app = try harness.addClient(name: "Test Shop")
            // A client whose list names the scope, given a code for it behind the endpoints' back.
            let rogue = try harness.addClient(
                name: "Rogue", type: .public, redirectURIs: ["http://127.0.0.1/callback"],
                scopes: ["openid", "companion"], privacyURL: nil)
            let tokens = try await harness.signIn(user, to: rogue, scopes: ["openid", "companion"])
            let token = try #require(tokens.string("access_token"))
            let reply = try await harness.request(
                "POST", "/oauth/companion/authorize", form: TestCompanion.request(for: app, pkce: PKCEPair()),
                headers: ["Authorization": "Bearer \(token)"])
            #expect(reply.status == 403)
            #expect(reply.string("error") == "insufficient_scope")
        }
    }

    @Test func theCompanionScopeIsForCompanionClientsOnly() async throws {
        try await ProviderHarness.with { harness in
            try harness.addUser()
            let app = try harness.addClient(
                name: "Test Shop", scopes: ProviderHarness.allScopes + ["companion"],
                grants: ["authorization_code", "refresh_token", ProviderHarness.deviceGrantType])
            let agent = try await TestCompanion.signIn(harness, client: try TestCompanion.register(in: harness))

            // At the authorization endpoint, even for a client whose list names the scope.
            let browser = TestBrowser(base: harness.base)
            let page = try await browser.get(TestBrowser.authorizePath(client: app, scope: "openid companion"))
            #expect(page.redirectParameters["error"] == "invalid_scope", "\(page.location ?? page.text)")
            // At the device authorization endpoint.
            let device = try await harness.post(
                "/oauth/device_authorization", [("client_id", app.id), ("scope", "openid companion")],
                client: .none)
            #expect(device.string("error") != nil)
            let confidential = try await harness.post(
                "/oauth/device_authorization", [("scope", "openid companion")],
                client: .post(id: app.id, secret: "secret"))
            #expect(confidential.string("error") == "invalid_scope", "\(confidential.text)")
            // Brokered by the companion.
            let brokered = try await agent.authorize(
                TestCompanion.request(for: app, pkce: PKCEPair(), scope: "openid companion"))
            #expect(brokered.string("error") == "invalid_scope")
            #expect(brokered.string("state") == "app-state")
            // Nor may a companion broker for a companion.
            let itself = try await agent.authorize(TestCompanion.request(for: agent.client, pkce: PKCEPair()))
            #expect(itself.string("error") == "invalid_request")

            // Registration: the scope needs --companion.
            var registration = ClientRegistration(name: "Sneaky", redirectURIs: ["https://sneaky.example/cb"])
            registration.scopes = ["openid", "companion"]
            #expect(throws: AdminError.self) { try registration.register(in: harness.store) }
            let plain = try ClientRegistration(name: "Plain", redirectURIs: ["https://plain.example/cb"])
                .register(in: harness.store).client
            #expect(!plain.allowedScopes.contains("companion"))
            #expect(try harness.store.read { try $0.isCompanionClient(id: plain.id) } == false)
            #expect(try harness.store.read { try $0.isCompanionClient(id: agent.client.id) })
        }
    }

    @Test func badInputGetsAnOAuthErrorNeverA500() async throws {
        try await ProviderHarness.with { harness in
            try harness.addUser()
            let app = try harness.addClient(name: "Test Shop")
            let agent = try await TestCompanion.signIn(harness, client: try TestCompanion.register(in: harness))
            let pkce = PKCEPair()
            func error(_ form: [(String, String)]) async throws -> (Int, String?, String?) {
                let reply = try await agent.authorize(form)
                return (reply.status, reply.string("error"), reply.string("state"))
            }
            let good = TestCompanion.request(for: app, pkce: pkce)
            func without(_ name: String) -> [(String, String)] { good.filter { $0.0 != name } }
            #expect(try await error(without("client_id")) == (400, "invalid_request", nil))
            #expect(
                try await error(good.map { $0.0 == "client_id" ? ($0.0, "nobody") : $0 }) == (
                    400, "invalid_request", nil
                ))
            let elsewhere = good.map { $0.0 == "redirect_uri" ? ($0.0, "https://evil.example/cb") : $0 }
            #expect(try await error(elsewhere) == (400, "invalid_request", nil))
            #expect(try await error(without("code_challenge")) == (400, "invalid_request", "app-state"))
            let plain = good.map { $0.0 == "code_challenge_method" ? ($0.0, "plain") : $0 }
            #expect(try await error(plain) == (400, "invalid_request", "app-state"))
            #expect(try await error(good + [("scope", "email")]) == (400, "invalid_request", "app-state"))
            let unknown = good.map { $0.0 == "scope" ? ($0.0, "openid nothing") : $0 }
            #expect(try await error(unknown) == (400, "invalid_scope", "app-state"))
            #expect(
                try await error(good + [("response_type", "token")]) == (400, "unsupported_response_type", "app-state"))
            #expect(try await error(good + [("prompt", "sometimes")]) == (400, "invalid_request", "app-state"))
            let long = good.map { $0.0 == "state" ? ($0.0, String(repeating: "s", count: 3000)) : $0 }
            #expect(try await error(long).1 == "invalid_request")

            let notForm = try await harness.request(
                "POST", "/oauth/companion/authorize", headers: ["Authorization": "Bearer \(agent.accessToken)"],
                rawBody: "{\"client_id\": \"x\"}")
            #expect(notForm.status == 400)
            #expect(notForm.string("error") == "invalid_request")
            let broken = try await harness.request(
                "POST", "/oauth/companion/consent",
                headers: [
                    "Authorization": "Bearer \(agent.accessToken)",
                    "Content-Type": "application/x-www-form-urlencoded",
                ], rawBody: "ticket=%zz")
            #expect(broken.string("error") == "invalid_request")
            let noTicket = try await harness.request(
                "POST", "/oauth/companion/consent", form: [("decision", "allow")],
                headers: ["Authorization": "Bearer \(agent.accessToken)"])
            #expect(noTicket.string("error") == "invalid_request")
            let get = try await harness.get("/oauth/companion/authorize", bearer: agent.accessToken)
            #expect(get.status == 405 || get.status == 404)
        }
    }

    @Test func discoveryAdvertisesTheCompanionEndpoints() async throws {
        try await ProviderHarness.with { harness in
            let document = try await harness.get("/.well-known/openid-configuration")
            #expect(
                document.string("companion_authorization_endpoint") == harness.issuer + "/oauth/companion/authorize")
            #expect(document.string("companion_consent_endpoint") == harness.issuer + "/oauth/companion/consent")
            #expect(document.json["scopes_supported"]?.arrayValue?.contains("companion") == true)
        }
    }
}
