import Foundation
import PorticoCrypto
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

/// `portico client suspend | resume | verify` against a running provider on SQLite, over real
/// HTTP: a suspended app's sign-in gets a page, its tokens are refused at once, its token
/// requests get `invalid_client`; resuming undoes it; registrations start unverified.
@Suite struct ClientSuspensionTests {
    /// Polls the token endpoint until `done` holds for its answer to a refresh (clients are
    /// cached for a few seconds, as for `client remove`), at most ten seconds.
    func refreshUntil(
        _ harness: ProviderHarness, _ token: String, client: ClientCredentials, _ done: (TestReply) -> Bool
    ) async throws -> TestReply {
        var reply = try await harness.refresh(token, client: client)
        for _ in 0..<40 where !done(reply) {
            try await Task.sleep(for: .milliseconds(250))
            reply = try await harness.refresh(token, client: client)
        }
        return reply
    }

    @Test func aSuspendedAppSignsNobodyInAndItsTokensStopAtOnce() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let app = try harness.addClient(name: "Shady App", secret: ProviderHarness.confidentialSecret)
            let server = try harness.addConfidentialClient(introspection: true)
            let reply = try await harness.signIn(user, to: app, scopes: ["openid", "profile"])
            let accessToken = try #require(reply.string("access_token"))
            let refreshToken = try #require(reply.string("refresh_token"))
            let authorize =
                "/oauth/authorize?response_type=code&client_id=\(app.id)&redirect_uri="
                + ProviderHarness.formEncode(app.redirectURIs[0])
                + "&scope=openid&state=s&code_challenge=\(String(repeating: "a", count: 43))&code_challenge_method=S256"
            #expect(try await harness.get(authorize).status != 400)

            let suspended = try harness.portico(["client", "suspend", app.id])
            #expect(suspended.status == 0, "\(suspended.stderr)")

            // At once: no waiting for any cache.
            #expect(try await harness.introspect(accessToken, client: .of(server)).json == ["active": false])
            let userinfo = try await harness.resource("/oauth/userinfo", token: accessToken)
            #expect(userinfo.status == 401)
            let page = try await harness.get(authorize)
            #expect(page.status == 400)
            #expect(page.header("Location") == nil)
            #expect(page.text.contains("Shady App is suspended"))

            let refused = try await refreshUntil(harness, refreshToken, client: .of(app)) { $0.status != 200 }
            #expect(refused.status == 401)
            #expect(refused.string("error") == "invalid_client")
            #expect(try harness.portico(["client", "list", "--json"]).stdout.contains("\"suspended\": true"))

            let resumed = try harness.portico(["client", "resume", app.id])
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(try await harness.resource("/oauth/userinfo", token: accessToken).status == 200)
            #expect(try await harness.introspect(accessToken, client: .of(server)).json["active"] == true)
            #expect(try await harness.get(authorize).status != 400)
            let again = try await refreshUntil(harness, refreshToken, client: .of(app)) { $0.status == 200 }
            #expect(again.status == 200, "\(again.text)")
        }
    }

    @Test func registeredAppsStartUnverifiedUntilTheOperatorVerifiesThem() async throws {
        try await ProviderHarness.with { harness in
            let added = try harness.addConfidentialClient()
            let token = try RegistrationTokenIssue().create(in: harness.store)
            let reply = try await register(harness, #"{"redirect_uris": ["https://shop.example/cb"]}"#, token: token)
            let id = try #require(reply.string("client_id"))
            func verified(_ clientID: String) throws -> Bool? {
                let list = try harness.portico(["client", "list", "--json"])
                let entry = cliJSON(list.stdout)?.arrayValue?.first {
                    $0.objectValue?["client_id"]?.stringValue == clientID
                }
                return entry?.objectValue?["verified"]?.boolValue
            }
            #expect(try verified(added.id) == true)
            #expect(try verified(id) == false)
            #expect(
                try harness.portico(["client", "list"]).stdout.contains(
                    "\(id)  confidential  Unnamed app  (unverified)"))
            let verify = try harness.portico(["client", "verify", id])
            #expect(verify.status == 0, "\(verify.stderr)")
            #expect(try verified(id) == true)
        }
    }

    /// The consent page `client` gets for a person signing in afresh in `language`.
    func consentPage(_ harness: ProviderHarness, _ client: Client, language: String? = nil) async throws -> String {
        let browser = harness.browser(acceptLanguage: language)
        let start = try await browser.get(TestBrowser.authorizePath(client: client, scope: "openid"))
        let login = try await browser.signIn(at: try #require(start.location))
        let page = try await browser.get(try #require(login.location))
        return page.text
    }

    @Test func theConsentPageWarnsOfAnUnverifiedAppInBothLanguages() async throws {
        try await ProviderHarness.with { harness in
            _ = try harness.addUser()
            let added = try harness.addConfidentialClient()
            let token = try RegistrationTokenIssue().create(in: harness.store)
            let reply = try await register(harness, #"{"redirect_uris": ["https://shop.example/cb"]}"#, token: token)
            let id = try #require(reply.string("client_id"))
            let registered = try #require(try harness.store.transaction { try $0.client(id: id) })
            let english = "Portico has not verified this app."
            #expect(try await consentPage(harness, registered).contains(english))
            #expect(try await consentPage(harness, registered, language: "zh-CN").contains("Portico 尚未验证此应用。"))
            #expect(try await !consentPage(harness, added).contains(english))
            #expect(try harness.portico(["client", "verify", id]).status == 0)
            #expect(try await !consentPage(harness, registered).contains("id=\"unverified-app\""))
        }
    }

    @Test func anUnverifiedAppSignsInAtMostAHundredPeople() async throws {
        try await ProviderHarness.with { harness in
            _ = try harness.addUser()
            let token = try RegistrationTokenIssue().create(in: harness.store)
            let reply = try await register(
                harness, #"{"client_name": "Newcomer", "redirect_uris": ["https://n.example/cb"]}"#, token: token)
            let id = try #require(reply.string("client_id"))
            let registered = try #require(try harness.store.transaction { try $0.client(id: id) })
            for index in 0..<99 {
                let person = try harness.addUser(email: "p\(index)@example.com")
                try harness.store.transaction {
                    try $0.saveConsent(userID: person.id, clientID: id, scopes: ["openid"], now: harness.clock.now)
                }
            }
            // The 100th person may still allow it.
            #expect(try await consentPage(harness, registered).contains("name=\"decision\" value=\"allow\""))
            let last = try harness.addUser(email: "p99@example.com")
            try harness.store.transaction {
                try $0.saveConsent(userID: last.id, clientID: id, scopes: ["openid"], now: harness.clock.now)
            }
            let refused = try await consentPage(harness, registered)
            #expect(
                refused.contains("Newcomer can&#39;t take new people yet")
                    || refused.contains("Newcomer can't take new people yet"), "\(refused)")
            #expect(!refused.contains("value=\"allow\""))
            #expect(try await consentPage(harness, registered, language: "zh-CN").contains("Newcomer 暂时无法接受新用户"))
            #expect(try harness.portico(["client", "verify", id]).status == 0)
            #expect(try await consentPage(harness, registered).contains("name=\"decision\" value=\"allow\""))
        }
    }

    @Test func unknownClientsAreRefusedByEveryAction() throws {
        let database = try CLIDatabase()
        for action in ["suspend", "resume", "verify"] {
            let result = try database.portico(["client", action, "nobody"])
            #expect(result.status == 1, "\(action)")
            #expect(result.stderr.contains("no client with id nobody"), "\(result.stderr)")
            let missing = try database.portico(["client", action])
            #expect(missing.status == 2)
        }
    }
}
