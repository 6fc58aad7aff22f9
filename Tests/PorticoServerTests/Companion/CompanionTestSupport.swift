import Foundation
import PorticoCrypto
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

/// A `portico-agent` signed in to a provider, as the companion tests drive it over HTTP.
struct TestCompanion {
    let harness: ProviderHarness
    /// The companion client, registered as `portico client add --companion` registers it.
    let client: Client
    /// The agent's current access token.
    let accessToken: String
    /// Its refresh token: the companion session.
    let refreshToken: String

    /// Registers a companion client with the real registration rules.
    static func register(in harness: ProviderHarness, name: String = "Portico agent") throws -> Client {
        var registration = ClientRegistration(name: name, redirectURIs: [])
        registration.isCompanion = true
        return try registration.register(in: harness.store).client
    }

    /// Signs the agent in by the device grant, the person approving on the `/device` pages in a
    /// browser with their password (the test robot), then polling with `agent_host`.
    static func signIn(
        _ harness: ProviderHarness, client: Client, host: String? = "build-box",
        scope: String = "openid profile companion", browser: TestBrowser? = nil
    ) async throws -> TestCompanion {
        let login = try await harness.startDeviceLogin(client, scope: scope)
        let robot = browser ?? TestBrowser(base: harness.base)
        let consent = try await robot.reachDeviceConsent(code: login.userCode)
        let approved = try await robot.decideDevice(on: consent, "allow")
        guard approved.status == 200 || approved.status == 303 else {
            throw HarnessFailure("device approval said \(approved.status)")
        }
        var form = [
            ("grant_type", ProviderHarness.deviceGrantType), ("client_id", client.id),
            ("device_code", login.deviceCode),
        ]
        if let host { form.append(("agent_host", host)) }
        let tokens = try await harness.post("/oauth/token", form)
        guard tokens.status == 200 else { throw HarnessFailure("device poll said \(tokens.status) \(tokens.text)") }
        guard let accessToken = tokens.string("access_token"), let refreshToken = tokens.string("refresh_token") else {
            throw HarnessFailure("no tokens in \(tokens.text)")
        }
        return TestCompanion(
            harness: harness, client: client, accessToken: accessToken, refreshToken: refreshToken)
    }

    /// The same session with another access token.
    func with(accessToken: String) -> TestCompanion {
        TestCompanion(harness: harness, client: client, accessToken: accessToken, refreshToken: refreshToken)
    }

    /// The app's authorization request, as the app hands it to the agent.
    static func request(
        for app: Client, pkce: PKCEPair, scope: String = "openid profile", state: String? = "app-state",
        extra: [(String, String)] = []
    ) -> [(String, String)] {
        var form = [
            ("client_id", app.id), ("redirect_uri", app.redirectURIs[0]), ("scope", scope), ("nonce", "app-nonce"),
            ("code_challenge", pkce.challenge), ("code_challenge_method", "S256"),
        ]
        if let state { form.append(("state", state)) }
        return form + extra
    }

    /// `POST /oauth/companion/authorize` with this agent's token.
    func authorize(_ form: [(String, String)], bearer: String? = nil, headers: [String: String] = [:])
        async throws -> TestReply
    {
        var headers = headers
        headers["Authorization"] = "Bearer \(bearer ?? accessToken)"
        return try await harness.request("POST", "/oauth/companion/authorize", form: form, headers: headers)
    }

    /// `POST /oauth/companion/consent` with this agent's token.
    func decide(_ ticket: String, _ decision: String, bearer: String? = nil) async throws -> TestReply {
        try await harness.request(
            "POST", "/oauth/companion/consent", form: [("ticket", ticket), ("decision", decision)],
            headers: ["Authorization": "Bearer \(bearer ?? accessToken)"])
    }

    /// Authorizes `app` through the agent, allowing the ticket when one comes, and returns the
    /// code's answer.
    func code(for app: Client, pkce: PKCEPair, scope: String = "openid profile") async throws -> TestReply {
        let first = try await authorize(Self.request(for: app, pkce: pkce, scope: scope))
        guard let ticket = first.string("ticket") else { return first }
        return try await decide(ticket, "allow")
    }
}

/// Redeems `code` at the token endpoint as `app` would, with `verifier` and `redirectURI`.
func companionRedeem(
    _ harness: ProviderHarness, app: Client, code: String, verifier: String, redirectURI: String? = nil
) async throws -> TestReply {
    var form = [
        ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI ?? app.redirectURIs[0]),
        ("code_verifier", verifier),
    ]
    if app.type == .public {
        form.append(("client_id", app.id))
        return try await harness.token(form, client: .none)
    }
    return try await harness.token(form, client: .post(id: app.id, secret: "secret"))
}
