import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

/// The companion's brokered authorization over real HTTP: the agent signs in once (device
/// login approved on the `/device` pages), then apps get codes through
/// `/oauth/companion/authorize` and `/oauth/companion/consent` with no password, and redeem
/// them at `/oauth/token` with their own PKCE verifiers.
@Suite struct CompanionFlowTests {
    @Test func twoAppsSignInThroughTheAgentWithOneConsentEachAndNoPassword() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let shop = try harness.addClient(
                name: "Test Shop", redirectURIs: ["https://shop.example/callback"],
                logoURL: "https://shop.example/logo.png", privacyURL: "https://shop.example/privacy")
            let notes = try harness.addClient(
                name: "Notes", type: .public, redirectURIs: ["http://127.0.0.1/callback"], privacyURL: nil)
            let agent = try await TestCompanion.signIn(harness, client: try TestCompanion.register(in: harness))

            // The shop (confidential): a consent ticket with what to show.
            let shopPKCE = PKCEPair()
            let asked = try await agent.authorize(TestCompanion.request(for: shop, pkce: shopPKCE))
            #expect(asked.status == 200, "\(asked.text)")
            #expect(asked.json["consent_required"] == .bool(true))
            #expect(asked.string("kind") == "consent")
            #expect(asked.json["remembered"] == .bool(false))
            #expect(asked.json["expires_in"] == .integer(300))
            let client = try #require(asked.json["client"]?.objectValue)
            #expect(client["client_id"] == .string(shop.id))
            #expect(client["name"] == "Test Shop")
            #expect(client["logo_uri"] == "https://shop.example/logo.png")
            #expect(client["policy_uri"] == "https://shop.example/privacy")
            #expect(asked.json["user"]?.objectValue?["name"] == "Ann Example")
            let scopes = try #require(asked.json["scopes"]?.arrayValue).compactMap(\.objectValue)
            #expect(scopes.map { $0["name"] } == ["openid", "profile"])
            #expect(scopes[1]["description"] == "See your name, e-mail address and account ID")
            #expect(asked.header("Cache-Control") == "no-store")
            let allowed = try await agent.decide(try #require(asked.string("ticket")), "allow")
            #expect(allowed.status == 200, "\(allowed.text)")
            #expect(allowed.string("state") == "app-state")
            #expect(allowed.string("iss") == harness.issuer)
            let shopCode = try #require(allowed.string("code"))
            let shopTokens = try await companionRedeem(harness, app: shop, code: shopCode, verifier: shopPKCE.verifier)
            #expect(shopTokens.status == 200, "\(shopTokens.text)")
            let shopAccess = try #require(shopTokens.string("access_token"))
            let profile = try await harness.resource("/oauth/userinfo", token: shopAccess)
            #expect(profile.string("sub") == user.id)
            #expect(profile.string("name") == "Ann Example")
            // The app's ID token carries the app's nonce: the code was bound to it.
            let idToken = try #require(shopTokens.string("id_token"))
            let claims = try (try await harness.jwksVerifier()).verify(idToken, algorithms: [.rs256]).claims()
            #expect(claims["nonce"] == "app-nonce")
            #expect(claims.audience == [shop.id])

            // Notes (public): its own ticket, its own code, its own verifier.
            let notesPKCE = PKCEPair()
            let notesCode = try #require(try await agent.code(for: notes, pkce: notesPKCE).string("code"))
            let notesTokens = try await companionRedeem(
                harness, app: notes, code: notesCode, verifier: notesPKCE.verifier)
            #expect(notesTokens.status == 200, "\(notesTokens.text)")
            let notesClaims = try (try await harness.jwksVerifier()).verify(
                try #require(notesTokens.string("access_token")), algorithms: [.es256]
            ).claims()
            #expect(notesClaims["client_id"] == .string(notes.id))

            // Both remembered: the shop gets a code at once, Notes a one-click "continue".
            let again = try await agent.authorize(TestCompanion.request(for: shop, pkce: PKCEPair()))
            #expect(again.status == 200)
            #expect(again.string("code") != nil)
            #expect(again.json["consent_required"] == nil)
            let notesAgain = try await agent.authorize(TestCompanion.request(for: notes, pkce: PKCEPair()))
            #expect(notesAgain.string("kind") == "continue", "\(notesAgain.text)")
            #expect(notesAgain.json["remembered"] == .bool(true))
            #expect(notesAgain.string("code") == nil)
            let continued = try await agent.decide(try #require(notesAgain.string("ticket")), "allow")
            #expect(continued.string("code") != nil)

            // Incremental consent: a new scope asks only for what is new.
            let more = try await agent.authorize(
                TestCompanion.request(for: shop, pkce: PKCEPair(), scope: "openid profile postal_code"))
            #expect(more.string("kind") == "consent")
            #expect(try #require(more.json["scopes"]?.arrayValue).map { $0.objectValue?["name"] } == ["postal_code"])
            #expect(
                try #require(more.json["granted_scopes"]?.arrayValue).map { $0.objectValue?["name"] }
                    == ["openid", "profile"])

            // Audited.
            let actions = try harness.store.read { try $0.recentAuditEvents(limit: 50) }.map(\.action)
            #expect(actions.contains("companion.session.start"))
            #expect(actions.filter { $0 == "companion.ticket" }.count == 4)
            #expect(actions.filter { $0 == "companion.allow" }.count == 3)
            #expect(actions.contains("companion.code"))
        }
    }

    @Test func theCodeIsTheAppsOnlyWithItsVerifierAndRedirectURI() async throws {
        try await ProviderHarness.with { harness in
            try harness.addUser()
            let app = try harness.addClient(
                name: "Notes", type: .public,
                redirectURIs: ["http://127.0.0.1/callback", "http://127.0.0.1/other"], privacyURL: nil)
            let agent = try await TestCompanion.signIn(harness, client: try TestCompanion.register(in: harness))
            let pkce = PKCEPair()
            let first = try #require(try await agent.code(for: app, pkce: pkce).string("code"))
            let stolen = try await companionRedeem(harness, app: app, code: first, verifier: PKCEPair().verifier)
            #expect(stolen.status == 400)
            #expect(stolen.string("error") == "invalid_grant")

            let second = try #require(
                try await agent.authorize(TestCompanion.request(for: app, pkce: pkce)).string("ticket"))
            let code = try #require(try await agent.decide(second, "allow").string("code"))
            let elsewhere = try await companionRedeem(
                harness, app: app, code: code, verifier: pkce.verifier, redirectURI: "http://127.0.0.1/other")
            #expect(elsewhere.string("error") == "invalid_grant")

            // The agent's own client cannot redeem it either.
            let third = try #require(
                try await agent.authorize(TestCompanion.request(for: app, pkce: pkce)).string("ticket"))
            let code3 = try #require(try await agent.decide(third, "allow").string("code"))
            let byAgent = try await harness.token(
                [
                    ("grant_type", "authorization_code"), ("code", code3), ("redirect_uri", app.redirectURIs[0]),
                    ("code_verifier", pkce.verifier), ("client_id", agent.client.id),
                ], client: .none)
            #expect(byAgent.string("error") == "invalid_grant")
        }
    }

    @Test func denyAnswersAccessDeniedWithTheAppsState() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let app = try harness.addClient(name: "Test Shop")
            let agent = try await TestCompanion.signIn(harness, client: try TestCompanion.register(in: harness))
            let asked = try await agent.authorize(TestCompanion.request(for: app, pkce: PKCEPair()))
            let denied = try await agent.decide(try #require(asked.string("ticket")), "deny")
            #expect(denied.status == 400)
            #expect(denied.string("error") == "access_denied")
            #expect(denied.string("state") == "app-state")
            #expect(denied.string("iss") == harness.issuer)
            #expect(denied.string("code") == nil)
            #expect(try harness.store.read { try $0.consent(userID: user.id, clientID: app.id) } == nil)
            // Nothing remembered: asked again.
            let again = try await agent.authorize(TestCompanion.request(for: app, pkce: PKCEPair()))
            #expect(again.string("kind") == "consent")
        }
    }

    @Test func ticketsAreSingleUseExpireAndBelongToTheirSession() async throws {
        try await ProviderHarness.with { harness in
            try harness.addUser()
            let app = try harness.addClient(name: "Test Shop")
            let companion = try TestCompanion.register(in: harness)
            let agent = try await TestCompanion.signIn(harness, client: companion)
            let other = try await TestCompanion.signIn(harness, client: companion, host: "laptop")

            let ticket = try #require(
                try await agent.authorize(TestCompanion.request(for: app, pkce: PKCEPair())).string("ticket"))
            let stolen = try await other.decide(ticket, "allow")
            #expect(stolen.status == 400)
            #expect(stolen.string("error") == "invalid_ticket")
            #expect(stolen.string("code") == nil)
            // A bad decision does not burn it either.
            let garbled = try await agent.decide(ticket, "maybe")
            #expect(garbled.string("error") == "invalid_request")
            let used = try await agent.decide(ticket, "allow")
            #expect(used.string("code") != nil, "\(used.text)")
            let reused = try await agent.decide(ticket, "allow")
            #expect(reused.string("error") == "invalid_ticket")
            #expect(reused.string("code") == nil)

            let forced = TestCompanion.request(for: app, pkce: PKCEPair(), extra: [("prompt", "consent")])
            let late = try #require(try await agent.authorize(forced).string("ticket"))
            harness.clock.advance(by: 299)
            let ontime = try #require(try await agent.authorize(forced).string("ticket"))
            harness.clock.advance(by: 2)
            #expect(try await agent.decide(late, "allow").string("error") == "invalid_ticket")
            #expect(try await agent.decide(ontime, "allow").string("code") != nil)
            #expect(try await agent.decide("not-a-ticket", "allow").string("error") == "invalid_ticket")
        }
    }

    @Test func promptLoginAndNoneAreAnsweredAsTheAuthorizationEndpointWould() async throws {
        try await ProviderHarness.with { harness in
            try harness.addUser()
            let shop = try harness.addClient(name: "Test Shop")
            let notes = try harness.addClient(
                name: "Notes", type: .public, redirectURIs: ["http://127.0.0.1/callback"], privacyURL: nil)
            let agent = try await TestCompanion.signIn(harness, client: try TestCompanion.register(in: harness))
            func ask(_ app: Client, _ prompt: String) async throws -> TestReply {
                try await agent.authorize(
                    TestCompanion.request(for: app, pkce: PKCEPair(), extra: [("prompt", prompt)]))
            }
            let login = try await ask(shop, "login")
            #expect(login.status == 400)
            #expect(login.string("error") == "login_required")
            #expect(login.string("state") == "app-state")
            #expect(try await ask(shop, "select_account").string("error") == "login_required")
            let none = try await ask(shop, "none")
            #expect(none.string("error") == "consent_required")
            #expect(none.string("ticket") == nil)
            // max_age older than the agent's sign-in.
            harness.clock.advance(by: 120)
            let stale = try await agent.authorize(
                TestCompanion.request(for: shop, pkce: PKCEPair(), extra: [("max_age", "60")]))
            #expect(stale.string("error") == "login_required")

            _ = try #require(try await agent.code(for: shop, pkce: PKCEPair()).string("code"))
            _ = try #require(try await agent.code(for: notes, pkce: PKCEPair()).string("code"))
            #expect(try await ask(shop, "none").string("code") != nil)
            let publicNone = try await ask(notes, "none")
            #expect(publicNone.string("error") == "interaction_required")
            #expect(publicNone.string("ticket") == nil)
            let consent = try await ask(shop, "consent")
            #expect(consent.string("kind") == "consent")
        }
    }

    @Test func scopeDescriptionsFollowUILocalesThenTheAgentsLanguage() async throws {
        try await ProviderHarness.with { harness in
            try harness.addUser()
            let app = try harness.addClient(name: "Test Shop")
            let agent = try await TestCompanion.signIn(harness, client: try TestCompanion.register(in: harness))
            func description(_ reply: TestReply) -> JSONValue? {
                reply.json["scopes"]?.arrayValue?.last?.objectValue?["description"]
            }
            let chinese = try await agent.authorize(
                TestCompanion.request(for: app, pkce: PKCEPair()), headers: ["Accept-Language": "zh-CN,zh;q=0.9"])
            #expect(description(chinese) == "查看您的姓名、电子邮件地址和账户 ID")
            #expect(chinese.string("language") == "zh-Hans")
            let asked = try await agent.authorize(
                TestCompanion.request(for: app, pkce: PKCEPair(), extra: [("ui_locales", "en")]),
                headers: ["Accept-Language": "zh-CN"])
            #expect(description(asked) == "See your name, e-mail address and account ID")
        }
    }
}
