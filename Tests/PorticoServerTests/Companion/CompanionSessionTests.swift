import Foundation
import PorticoCrypto
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

/// The companion session: listed in Your Account as "Portico agent on <host>", ended by its
/// Sign out, a disabled account or a password reset, after which the agent's tokens get
/// `invalid_token` at the companion endpoints.
@Suite struct CompanionSessionTests {
    @Test func yourAccountListsTheAgentAndSignOutEndsItsSession() async throws {
        try await ProviderHarness.with { harness in
            let ann = try harness.addUser()
            let app = try harness.addClient(name: "Test Shop")
            let companion = try TestCompanion.register(in: harness)
            let browser = TestBrowser(base: harness.base)
            let agent = try await TestCompanion.signIn(harness, client: companion, browser: browser)
            let laptop = try await TestCompanion.signIn(harness, client: companion, host: "laptop")
            let form = TestCompanion.request(for: app, pkce: PKCEPair())
            #expect(try await agent.authorize(form).status == 200)

            let page = try await browser.get("/account")
            #expect(page.status == 200)
            #expect(page.text.contains("Portico agent on build-box"))
            #expect(page.text.contains("Portico agent on laptop"))
            let sessions = try harness.store.read {
                try $0.liveCompanionSessions(userID: ann.id, now: harness.clock.now)
            }
            #expect(sessions.count == 2)
            let session = try #require(sessions.first { $0.hostName == "build-box" })
            #expect(page.text.contains(#"name="end_companion" value="\#(session.id)""#))

            let signedOut = try await browser.post(
                "/account",
                [("csrf_token", try #require(page.hiddenField("csrf_token"))), ("end_companion", session.id)])
            #expect(signedOut.status == 303)
            #expect(signedOut.location == "/account?done=signed_out")
            let after = try await browser.get("/account")
            #expect(!after.text.contains("Portico agent on build-box"))
            #expect(after.text.contains("Portico agent on laptop"))

            // The agent hears so at its next request; its refresh token is gone; the other stays.
            let refused = try await agent.authorize(form)
            #expect(refused.status == 401)
            #expect(refused.string("error") == "invalid_token")
            #expect(refused.header("WWW-Authenticate")?.contains("invalid_token") == true)
            #expect(try await harness.resource("/oauth/userinfo", token: agent.accessToken).status == 401)
            let refresh = try await harness.refresh(agent.refreshToken, client: .id(companion.id))
            #expect(refresh.string("error") == "invalid_grant")
            #expect(try await laptop.authorize(form).status == 200)
            let events = try harness.store.read { try $0.recentAuditEvents(limit: 20) }
            #expect(events.contains { $0.action == "companion.session.end" && $0.details.contains(session.id) })
        }
    }

    @Test func theSectionSpeaksChineseAndOnlyEndsTheOwnersSessions() async throws {
        try await ProviderHarness.with { harness in
            try harness.addUser()
            try harness.addUser(email: "bob@example.com", name: "Bob Example")
            let companion = try TestCompanion.register(in: harness)
            let ann = TestBrowser(base: harness.base, acceptLanguage: "zh-CN,zh;q=0.9")
            let annAgent = try await TestCompanion.signIn(harness, client: companion, browser: ann)
            let bob = TestBrowser(base: harness.base)
            let login = try await bob.signIn(at: "/login?return_to=%2Faccount", email: "bob@example.com")
            #expect(login.status == 303)

            let page = try await ann.get("/account")
            #expect(page.text.contains("build-box 上的 Portico agent"))
            #expect(page.text.contains(">退出</button>"))
            #expect(!page.text.contains("Portico agent on"))
            // Bob posts Ann's session id from his own page: nothing happens.
            let familyID = String(try #require(RefreshToken.familyID(of: annAgent.refreshToken)))
            let annSession = try #require(try harness.store.read { try $0.companionSession(familyID: familyID) })
            let bobPage = try await bob.get("/account")
            #expect(!bobPage.text.contains("Portico agent"))
            let attempt = try await bob.post(
                "/account",
                [("csrf_token", try #require(bobPage.hiddenField("csrf_token"))), ("end_companion", annSession.id)])
            #expect(attempt.status == 303)
            #expect(try await annAgent.authorize(TestCompanion.request(for: companion, pkce: PKCEPair())).status != 401)
            #expect(try harness.store.read { try $0.refreshFamily(id: annSession.familyID) }?.isRevoked == false)
        }
    }

    @Test func disablingThePersonOrAPasswordResetEndsTheSession() async throws {
        try await ProviderHarness.with { harness in
            let ann = try harness.addUser()
            try harness.addUser(email: "bob@example.com", name: "Bob Example")
            let app = try harness.addClient(name: "Test Shop")
            let companion = try TestCompanion.register(in: harness)
            let form = TestCompanion.request(for: app, pkce: PKCEPair())

            let annAgent = try await TestCompanion.signIn(harness, client: companion)
            #expect(try await annAgent.authorize(form).status == 200)
            _ = try UserAdministration.setDisabled(true, reference: ann.id, in: harness.store, now: harness.clock.now)
            let disabled = try await annAgent.authorize(form)
            #expect(disabled.status == 401)
            #expect(disabled.string("error") == "invalid_token")

            let bobBrowser = TestBrowser(base: harness.base)
            let bobLogin = try await harness.startDeviceLogin(companion, scope: "openid companion")
            let consent = try await bobBrowser.reachDeviceConsent(code: bobLogin.userCode, email: "bob@example.com")
            _ = try await bobBrowser.decideDevice(on: consent, "allow")
            let tokens = try await harness.post(
                "/oauth/token",
                [
                    ("grant_type", ProviderHarness.deviceGrantType), ("client_id", companion.id),
                    ("device_code", bobLogin.deviceCode), ("agent_host", "bob-pc"),
                ])
            let bobAgent = TestCompanion(
                harness: harness, client: companion, accessToken: try #require(tokens.string("access_token")),
                refreshToken: try #require(tokens.string("refresh_token")))
            #expect(try await bobAgent.authorize(form).status == 200)
            harness.clock.advance(by: 2)
            _ = try await accountForgot(TestBrowser(base: harness.base), email: "bob@example.com")
            let link = try resetLink(in: try #require(try await harness.outboxMessages(atLeast: 1).last))
            let reset = try await accountReset(TestBrowser(base: harness.base), link: link)
            #expect(reset.status == 200)
            let afterReset = try await bobAgent.authorize(form)
            #expect(afterReset.status == 401)
            #expect(afterReset.string("error") == "invalid_token")
        }
    }

    @Test func aLoopbackSignInStartsASessionAndRemovingTheAgentEndsIt() async throws {
        try await ProviderHarness.with { harness in
            let ann = try harness.addUser()
            let app = try harness.addClient(name: "Test Shop")
            let companion = try TestCompanion.register(in: harness)
            let browser = TestBrowser(base: harness.base)
            let pkce = PKCEPair()
            // The agent's own browser sign-in, on a loopback port of its choosing (RFC 8252 §7.3).
            var request = companion
            request.redirectURIs = ["http://127.0.0.1:43117/callback"]
            let done = try await browser.authorizeWithConsent(
                client: request, pkce: pkce, scope: "openid profile companion")
            let code = try #require(done.redirectParameters["code"], "\(done.location ?? done.text)")
            let tokens = try await harness.token(
                [
                    ("grant_type", "authorization_code"), ("code", code),
                    ("redirect_uri", "http://127.0.0.1:43117/callback"), ("code_verifier", pkce.verifier),
                    ("client_id", companion.id), ("agent_host", "loop-box"),
                ], client: .none)
            #expect(tokens.status == 200, "\(tokens.text)")
            let agent = TestCompanion(
                harness: harness, client: companion, accessToken: try #require(tokens.string("access_token")),
                refreshToken: try #require(tokens.string("refresh_token")))
            let claims = try (try await harness.jwksVerifier()).verify(agent.accessToken, algorithms: [.es256])
                .claims()
            let session = try #require(
                try harness.store.read { try $0.liveCompanionSessions(userID: ann.id, now: harness.clock.now) }.first)
            #expect(claims["companion_session"] == .string(session.id))
            #expect(session.hostName == "loop-box")
            let form = TestCompanion.request(for: app, pkce: PKCEPair())
            #expect(try await agent.authorize(form).status == 200)

            // Remove "Portico agent" as an app: every session of it ends.
            let page = try await browser.get("/account")
            #expect(page.text.contains("Portico agent on loop-box"))
            let removed = try await browser.post(
                "/account", [("csrf_token", try #require(page.hiddenField("csrf_token"))), ("revoke", companion.id)])
            #expect(removed.status == 303)
            #expect(try await agent.authorize(form).string("error") == "invalid_token")
            #expect(!(try await browser.get("/account")).text.contains("Portico agent on loop-box"))
        }
    }

    @Test func refreshingKeepsTheSessionAndTheHostNameIsOnlyALabel() async throws {
        try await ProviderHarness.with { harness in
            let ann = try harness.addUser()
            let app = try harness.addClient(name: "Test Shop")
            let companion = try TestCompanion.register(in: harness)
            let browser = TestBrowser(base: harness.base)
            let agent = try await TestCompanion.signIn(
                harness, client: companion, host: " <b>desk\u{0}top</b>\n" + String(repeating: "x", count: 100),
                browser: browser)
            _ = try await TestCompanion.signIn(harness, client: companion, host: nil, browser: browser)
            let refreshed = try await harness.refresh(
                agent.refreshToken, client: .id(companion.id))
            let renewed = agent.with(accessToken: try #require(refreshed.string("access_token")))
            #expect(try await renewed.authorize(TestCompanion.request(for: app, pkce: PKCEPair())).status == 200)
            let sessions = try harness.store.read {
                try $0.liveCompanionSessions(userID: ann.id, now: harness.clock.now)
            }
            #expect(sessions.count == 2)
            let named = try #require(sessions.first { $0.hostName != nil })
            #expect(named.hostName == "<b>desk top</b> " + String(repeating: "x", count: 48))  // 64 in all
            let page = try await browser.get("/account")
            #expect(page.text.contains("Portico agent on &lt;b&gt;desk top&lt;/b&gt;"))
            #expect(page.text.contains("Portico agent on an unnamed device"))
        }
    }
}
