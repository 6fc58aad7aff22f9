import Foundation
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `portico serve --demo`: seeding, the demo pages, and their refusal of foreign callbacks.
/// (The whole flow through sign-in and consent runs in tests/browser.)
@Suite struct DemoModeTests {
    @Test func withoutDemoThereIsNoDemoAppNorRoutes() async throws {
        try await ProviderHarness.with(configuration: .testing { $0.demo = false }) { (harness) async throws in
            #expect(harness.demo == nil)
            #expect(try await CLIHTTP.get(harness.issuer + "/demo").status == 404)
            #expect(try await CLIHTTP.get(harness.issuer + "/demo/callback?code=x&state=y").status == 404)
            #expect(try harness.store.clients().isEmpty)
            #expect(try harness.store.users().isEmpty)
        }
    }

    @Test func demoSeedsAppAndPersonWithASecretDerivedFromTheKeyFile() async throws {
        try await ProviderHarness.with(configuration: .testing { $0.demo = true }) { harness in
            let credentials = try #require(harness.demo)
            #expect(credentials.startURL == harness.issuer + "/demo")
            #expect(credentials.email == "demo@example.com")
            #expect(credentials.password == "portico-demo")
            let store = harness.store
            let client = try #require(try store.client(id: credentials.clientID))
            #expect(client.name == "Portico Demo App")
            #expect(client.type == .confidential)
            #expect(client.redirectURIs == [harness.issuer + "/demo/callback", harness.issuer + "/demo/web/callback"])
            let firstHash = client.secretHash
            let person = try #require(try store.user(email: "demo@example.com"))
            #expect(PasswordHasher().verify("portico-demo", against: person.passwordHash))
            #expect(person.isEmailVerified)
            let page = try await CLIHTTP.get(credentials.startURL)
            #expect(page.status == 200)
            #expect(page.body.contains("Login with Portico"))
            #expect(page.headers["content-security-policy"]?.contains("frame-ancestors 'none'") == true)

            // A restart (like another node given the same key file) derives the same secret, so
            // the hash another node wrote still matches what this one holds in memory.
            try await harness.restart()
            let clients = try store.clients()
            #expect(clients.count == 1)
            #expect(clients.first?.secretHash == firstHash)
            #expect(
                clients.first?.redirectURIs == [
                    harness.issuer + "/demo/callback", harness.issuer + "/demo/web/callback",
                ])
            #expect(try store.users().count == 1)
        }
    }

    @Test func loginStartsACodeFlowWithPKCEStateAndNonce() async throws {
        try await ProviderHarness.with(configuration: .testing { $0.demo = true }) { harness in
            let answer = try await CLIHTTP.get(harness.issuer + "/demo/login")
            #expect(answer.status == 302)
            let location = try #require(answer.headers["location"])
            #expect(location.hasPrefix(harness.issuer + "/oauth/authorize?"))
            let query = try #require(URLComponents(string: location)?.queryItems)
            let parameters = Dictionary(
                query.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
            #expect(parameters["response_type"] == "code")
            #expect(parameters["client_id"] == "portico-demo")
            #expect(parameters["redirect_uri"] == harness.issuer + "/demo/callback")
            #expect(parameters["code_challenge_method"] == "S256")
            #expect(parameters["code_challenge"]?.count == 43)
            #expect(parameters["nonce"]?.isEmpty == false)
            let state = try #require(parameters["state"])
            let cookie = try #require(answer.headers["set-cookie"])
            #expect(cookie.contains("portico_demo_state=\(state)"))
            #expect(cookie.contains("HttpOnly"))
        }
    }

    @Test func callbackRefusesAStateThisBrowserDidNotStart() async throws {
        try await ProviderHarness.with(configuration: .testing { $0.demo = true }) { harness in
            let started = try await CLIHTTP.get(harness.issuer + "/demo/login")
            let location = try #require(started.headers["location"])
            let state = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "state" }?.value)

            // No cookie: a code injected into someone else's browser (CSRF) is refused.
            let foreign = try await CLIHTTP.get(harness.issuer + "/demo/callback?code=abc&state=\(state)")
            #expect(foreign.status == 400)
            #expect(foreign.body.contains("cannot be finished"))

            // The right cookie but an unknown state, and a cancelled sign-in, each get a readable page.
            let unknown = try await CLIHTTP.get(
                harness.issuer + "/demo/callback?code=abc&state=other", cookie: "portico_demo_state=other")
            #expect(unknown.status == 400)
            let second = try await CLIHTTP.get(harness.issuer + "/demo/login")
            let secondState = try #require(
                URLComponents(string: second.headers["location"] ?? "")?.queryItems?.first { $0.name == "state" }?.value
            )
            let cancelled = try await CLIHTTP.get(
                harness.issuer + "/demo/callback?error=access_denied&state=\(secondState)",
                cookie: "portico_demo_state=\(secondState)")
            #expect(cancelled.status == 400)
            #expect(cancelled.body.contains("Sign-in cancelled"))
            #expect(cancelled.body.contains("access_denied"))
        }
    }
}
