import Foundation
import PorticoHostBackend
import PorticoServer
import PorticoStore
import PorticoTesting
import Synchronization
import Testing

@testable import PorticoKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The account-link story in process: a provider, a host backend (the example's) on an
/// ephemeral port registered as the confidential host client with a back-channel logout URI,
/// a mini-program of that host, and a person.
final class AccountLinkWorld: Sendable {
    static let hostSecret = "host secret"
    let kit: KitHarness
    let host: Client
    let miniProgram: Client
    let person: UserRecord
    let dataDirectory: URL
    let backend: Mutex<HostBackend>

    init(
        kit: KitHarness, host: Client, miniProgram: Client, person: UserRecord, dataDirectory: URL,
        backend: HostBackend
    ) {
        self.kit = kit
        self.host = host
        self.miniProgram = miniProgram
        self.person = person
        self.dataDirectory = dataDirectory
        self.backend = Mutex(backend)
    }

    var provider: ProviderHarness { kit.provider }
    var currentBackend: HostBackend { backend.withLock { $0 } }
    var backendURL: URL { URL(string: "http://127.0.0.1:\(currentBackend.port)")! }

    /// Runs `body` in a fresh world; delivery retries come quickly so a test sees them.
    /// `configure` changes the provider's configuration further (nonces wanted, for one).
    static func with(
        configure: @escaping (inout ProviderConfiguration) -> Void = { _ in },
        _ body: (AccountLinkWorld) async throws -> Void
    ) async throws {
        let configuration = ProviderConfiguration.testing {
            configure(&$0)
            $0.metrics = true
            $0.backchannelLogout = BackChannelLogoutSettings(
                pollInterval: .milliseconds(100), requestTimeout: .seconds(2), firstRetryDelay: .milliseconds(200),
                maximumRetryDelay: .milliseconds(500), batchSize: 1,
                // A provider stopped mid-delivery holds its claim this long: the restarted one
                // waits it out before delivering again.
                leaseDuration: .seconds(5))
        }
        try await ProviderHarness.with(configuration: configuration) { harness in
            let kit = KitHarness(provider: harness)
            let dataDirectory = harness.directory.appendingPathComponent("host-backend")
            // A confidential client's loopback URI matches byte for byte, port included.
            let redirectURI = "http://127.0.0.1:\(try freePort())/callback"
            var host = Client(
                name: "Host App", type: .confidential, secret: hostSecret, redirectURIs: [redirectURI],
                allowedScopes: ["openid", "profile", "account_link"],
                allowedGrantTypes: [
                    "authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:token-exchange",
                ])
            let backend = try Self.startBackend(host: host.id, provider: harness, dataDirectory: dataDirectory, port: 0)
            host.backchannelLogoutURI = backend.backchannelLogoutURI
            try harness.store.insert(host)
            var registration = ClientRegistration(name: "Mini Shop", redirectURIs: [])
            registration.miniProgramOf = host.id
            registration.scopes = ["openid", "profile"]
            let miniProgram = try registration.register(in: harness.store).client
            let person = try kit.addUser(name: "Mei Host")
            let world = AccountLinkWorld(
                kit: kit, host: host, miniProgram: miniProgram, person: person, dataDirectory: dataDirectory,
                backend: backend)
            defer { world.currentBackend.shutdown() }
            try await body(world)
        }
    }

    private static func startBackend(host: String, provider: ProviderHarness, dataDirectory: URL, port: UInt16) throws
        -> HostBackend
    {
        let platform = PlatformClient(issuer: URL(string: provider.base)!, clientID: host, clientSecret: hostSecret)
        let backend = try HostBackend(platform: platform, dataDirectory: dataDirectory, port: port)
        try backend.start()
        return backend
    }

    /// Stops the host backend (it is "down").
    func stopBackend() {
        currentBackend.shutdown()
    }

    /// Starts the host backend again on the same port and data directory (after a provider
    /// restart its provider URL is the new one).
    func restartBackend() throws {
        let port = currentBackend.port
        let fresh = try Self.startBackend(host: host.id, provider: provider, dataDirectory: dataDirectory, port: port)
        backend.withLock { $0 = fresh }
    }

    /// The host app signed in to its backend as `name`; its backend client.
    func hostApp(_ name: String = "mei") async throws -> HostAppClient {
        try await HostAppClient(base: backendURL).signedIn(as: name)
    }

    /// A manager of the host client whose user agent is the system browser driven by `opener`.
    /// It pushes its requests through the host backend, as `portico-host-demo` does (a host app
    /// signed in to its backend as the default host user; each push with a fresh session, so a
    /// back-channel logout that ends the host's sessions does not end the pushing).
    func manager(
        opener: BrowserOpener, store: any TokenStore = InMemoryTokenStore(), browserTimeout: Duration = .seconds(60),
        clock: @escaping @Sendable () -> Date = { Date() },
        pushedAuthorization: PushedAuthorizationMode? = nil, usesDPoP: Bool = true, advertisesDPoP: Bool = true
    ) async throws -> AuthorizationManager {
        var discovered = try await Provider.discover(issuer: kit.issuer)
        // A provider without DPoP: its discovery would name no signing algorithms for proofs.
        if !advertisesDPoP { discovered.dpopSigningAlgorithmsSupported = [] }
        return AuthorizationManager(
            provider: discovered, clientID: host.id, redirectURI: URL(string: host.redirectURIs[0]), store: store,
            userAgent: SystemBrowserUserAgent(timeout: browserTimeout, opener: opener), clock: clock,
            usesDPoP: usesDPoP,
            pushedAuthorization: pushedAuthorization ?? .through { try await self.hostApp().push($0) })
    }

    /// A robot who signs in as the person and allows.
    func robot() -> SignInRobot {
        SignInRobot(email: person.email, password: kit.password)
    }

    /// A session of the host app on `manager`, counting its fetches.
    func session(
        _ manager: AuthorizationManager, app: HostAppClient, fetches: Counter = Counter(),
        returnGrace: Duration = .seconds(3), timeout: Duration = .seconds(60)
    ) -> AccountLinkSession {
        AccountLinkSession(manager: manager, returnGrace: returnGrace, timeout: timeout) { result in
            fetches.increment()
            return try await app.link(result)
        } unbind: { _ in
            try await app.unbind()
        }
    }

    /// A session of the host app on `manager` whose models carry the mini-program's own token,
    /// exchanged by the backend with the proof the session hands it; `proofs` records each
    /// proof the closure got (nil when none), in order.
    func boundSession(
        _ manager: AuthorizationManager, app: HostAppClient, proofs: ProofLog? = nil
    ) -> AccountLinkSession {
        let miniProgram = miniProgram.id
        return AccountLinkSession(manager: manager, timeout: .seconds(60)) { result, proof in
            proofs?.record(proof)
            return try await app.link(result, proof: proof, miniProgram: miniProgram)
        } unbind: { _ in
            try await app.unbind()
        }
    }

    /// Waits (up to `attempts` × 100 ms, a minute by default) until the host backend has received `count` logout tokens.
    func logoutTokens(atLeast count: Int, attempts: Int = 600) async throws -> [HostUserTable.ReceivedLogout] {
        for _ in 0..<attempts {
            let logouts = currentBackend.users.logouts
            if logouts.count >= count { return logouts }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw HarnessFailure("the host backend never received \(count) logout token(s)")
    }
}

/// The proofs an account-link closure was given, in order (nil when none), from any task.
final class ProofLog: Sendable {
    private let proofs = Mutex<[AccountLinkProof?]>([])
    func record(_ proof: AccountLinkProof?) { proofs.withLock { $0.append(proof) } }
    var all: [AccountLinkProof?] { proofs.withLock { $0 } }
}

/// Counts calls from any task.
final class Counter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

/// The host app's calls to the example host backend, as `portico-host-demo` makes them.
struct HostAppClient: Sendable {
    let base: URL
    var session: String?

    init(base: URL, session: String? = nil) {
        self.base = base
        self.session = session
    }

    func signedIn(as name: String) async throws -> HostAppClient {
        let reply = try await send("POST", "host/sessions", form: [("user", name)])
        var copy = self
        copy.session = try #require(reply.json["session"] as? String)
        return copy
    }

    func link(_ result: AuthorizeResult, proof: AccountLinkProof? = nil, miniProgram: String? = nil) async throws
        -> AuthModel
    {
        var form = [
            ("code", result.authorizationCode ?? ""), ("code_verifier", result.codeVerifier ?? ""),
            ("redirect_uri", result.redirectURI?.absoluteString ?? ""),
        ]
        if let miniProgram { form.append(("mini_program", miniProgram)) }
        if let proof { form.append(("dpop", proof.value)) }
        let reply = try await send("POST", "host/account-link", form: form)
        // The provider wants its nonce in the proof: hand it back to the session, which signs anew.
        if reply.status == 400, reply.json["error"] as? String == "use_dpop_nonce", let nonce = reply.nonce {
            throw DPoPNonceRequired(nonce: nonce)
        }
        guard reply.status == 200, let uid = reply.json["uid"] as? String,
            let token = reply.json["access_token"] as? String, let hostUserID = reply.json["host_user_id"] as? String
        else { throw HarnessFailure("the host backend did not link: \(reply.status) \(reply.json)") }
        let expiresAt = (reply.json["expires_at"] as? NSNumber).map { Date(timeIntervalSince1970: $0.doubleValue) }
        return AuthModel(
            uid: uid, accessToken: token, hostUserID: hostUserID, expiresAt: expiresAt,
            tokenType: reply.json["token_type"] as? String)
    }

    /// `POST /host/par`, as `portico-host-demo` pushes its requests through its backend.
    func push(_ request: PorticoKit.PushedAuthorizationRequest) async throws -> PushedAuthorizationResponse {
        let reply = try await send("POST", "host/par", form: request.formFields)
        guard reply.status == 201, let requestURI = reply.json["request_uri"] as? String else {
            throw HarnessFailure("the host backend did not push: \(reply.status) \(reply.json)")
        }
        return PushedAuthorizationResponse(requestURI: requestURI, expiresIn: 60)
    }

    func unbind() async throws {
        let reply = try await send("DELETE", "host/account-link")
        guard reply.status == 204 else { throw HarnessFailure("the host backend did not unbind: \(reply.status)") }
    }

    func miniProgramToken(_ clientID: String) async throws -> (status: Int, json: [String: Any]) {
        let reply = try await send("POST", "host/mini-programs/\(clientID)/token")
        return (reply.status, reply.json)
    }

    func send(_ method: String, _ path: String, form: [(String, String)] = []) async throws -> (
        status: Int, json: [String: Any], nonce: String?
    ) {
        var request = URLRequest(url: base.appendingPathComponent(path))
        request.httpMethod = method
        if let session { request.setValue("Bearer \(session)", forHTTPHeaderField: "Authorization") }
        if method == "POST" {
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(ProviderHarness.formEncode(form).utf8)
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        let http = response as? HTTPURLResponse
        return (http?.statusCode ?? 0, json, http?.value(forHTTPHeaderField: "DPoP-Nonce"))
    }
}

/// A person who opens the platform's page in the browser and does nothing: the page is loaded
/// (so the provider shows it), and the redirect never comes.
func onlookerOpener(opened: Signal) -> BrowserOpener {
    BrowserOpener { url in
        var provider = URLComponents()
        provider.scheme = url.scheme
        provider.host = url.host
        provider.port = url.port
        _ = try? await TestBrowser(base: provider.string ?? "").get(url.absoluteString)
        opened.fire()
    }
}

/// A loopback port nobody listens on now.
func freePort() throws -> UInt16 {
    // Below Linux's ephemeral range (32768-60999): the redirect URI's port is bound again for
    // each sign-in, and between two sign-ins a port of that range can be taken as the source
    // port of any outgoing connection on the machine (seen under load: "Address already in use").
    for _ in 0..<200 {
        guard let listener = try? LoopbackListener(port: UInt16.random(in: 20_000..<32_768)) else { continue }
        // A listener closes its socket when its serving ends: give it a deadline already passed.
        _ = listener.serve(path: "/", state: "", deadline: .now)
        return listener.port
    }
    let listener = try LoopbackListener()
    _ = listener.serve(path: "/", state: "", deadline: .now)
    return listener.port
}
