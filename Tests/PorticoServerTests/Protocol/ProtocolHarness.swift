import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore
import Synchronization
import Testing

@testable import PorticoServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A clock the test moves by hand, for lifetimes and the refresh grace period.
final class ProtocolTestClock: Sendable {
    private let offset = Mutex<TimeInterval>(0)

    /// Real time plus everything `advance(by:)` added.
    var now: Date { Date().addingTimeInterval(offset.withLock { $0 }) }

    /// Moves the clock forward.
    func advance(by seconds: TimeInterval) {
        offset.withLock { $0 += seconds }
    }
}

/// One HTTP answer as the protocol tests read it.
struct ProtocolReply: Sendable {
    var status: Int
    var headers: [String: String]
    var body: Data

    var text: String { String(decoding: body, as: UTF8.self) }

    func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The body as a JSON object (empty when it is not one).
    var json: [String: JSONValue] {
        JSONValue(parsing: Array(body))?.objectValue ?? [:]
    }

    /// A string member of the JSON body.
    func string(_ name: String) -> String? { json[name]?.stringValue }
}

/// A running provider with a real SQLite file, plus helpers to register people and apps and
/// to call the protocol endpoints over real HTTP.
///
/// By default it is an `IdentityProvider` exactly as `portico serve` starts it. With a
/// ``ProtocolTestClock`` (or other lifetimes) the same protocol routes are assembled on a
/// `ProviderContext` whose clock the test controls.
final class ProtocolHarness: @unchecked Sendable {
    let directory: URL
    let store: any Store
    let issuer: String
    let port: UInt16
    private let clock: ProtocolTestClock?
    private let provider: IdentityProvider?
    private let server: HTTPServer?
    private let context: ProviderContext?

    init(
        clock: ProtocolTestClock? = nil, lifetimes: TokenLifetimes? = nil, keyRefreshInterval: Duration = .seconds(5),
        metrics: Bool = false
    ) throws {
        self.clock = clock
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("portico-protocol-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = "sqlite:\(directory.path)/portico.db"
        if clock == nil && lifetimes == nil {
            let provider = try IdentityProvider(
                configuration: ProviderConfiguration(
                    port: 0, databaseURL: try DatabaseURL(parsing: url), logRequests: false,
                    keyRefreshInterval: keyRefreshInterval, metrics: metrics),
                store: try openStore(url: url, longRunning: true))
            try provider.start()
            self.provider = provider
            server = nil
            context = nil
            port = provider.port
            issuer = provider.issuer
            store = try openStore(url: url)
        } else {
            let store = try openStore(url: url)
            let clock = clock ?? ProtocolTestClock()
            let context = ProviderContext(
                issuer: "http://127.0.0.1", store: store, keys: try KeyRing(store: store),
                lifetimes: lifetimes ?? TokenLifetimes(), now: { clock.now })
            let router = Router()
            ProtocolRoutes.register(on: router, context: context)
            let server = HTTPServer(
                configuration: ServerConfiguration(port: 0, threads: 2, logRequests: false), router: router)
            try server.start()
            context.setIssuer("http://127.0.0.1:\(server.port)")
            self.store = store
            self.context = context
            self.server = server
            provider = nil
            port = server.port
            issuer = context.issuer
        }
    }

    /// The `--database` value of this harness's SQLite file, for the CLI.
    var databaseURL: String { "sqlite:\(directory.path)/portico.db" }

    func shutdown() {
        provider?.shutdown()
        server?.shutdown()
        store.close()
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: People, apps and codes

    /// A person; the password hash is never checked by these endpoints.
    func addUser(name: String = "Ann Example", postalCode: String? = "10115") throws -> UserRecord {
        let user = UserRecord(
            email: "ann-\(UUID().uuidString.prefix(8))@example.com", name: name, postalCode: postalCode,
            passwordHash: "$argon2id$unused")
        try store.insert(user)
        return user
    }

    /// A confidential client with `secret`.
    func addConfidentialClient(
        secret: String = "s3cret: with &/+=% and ü", scopes: [String] = ["openid", "profile", "email", "postal_code"],
        grants: [String] = ["authorization_code", "refresh_token"], idTokenAlgorithm: String = "RS256"
    ) throws -> Client {
        let client = Client(
            name: "Test Shop", type: .confidential, secret: secret, redirectURIs: ["https://shop.example/callback"],
            allowedScopes: scopes, allowedGrantTypes: grants, idTokenSigningAlgorithm: idTokenAlgorithm)
        try store.insert(client)
        return client
    }

    /// A public (native) client.
    func addPublicClient(grants: [String] = ["authorization_code", "refresh_token"]) throws -> Client {
        let client = Client(
            name: "Test App", type: .public, redirectURIs: ["http://127.0.0.1/callback"],
            allowedScopes: ["openid", "profile", "profile:user_id", "postal_code", "email"], allowedGrantTypes: grants)
        try store.insert(client)
        return client
    }

    /// An authorization code as `/oauth/authorize` would store it.
    struct IssuedCode {
        let code: String
        let verifier: String
        let redirectURI: String
    }

    func issueCode(
        for client: Client, user: UserRecord, scopes: [String], nonce: String? = nil, expiresIn: TimeInterval = 60,
        authTime: Date? = nil
    ) throws -> IssuedCode {
        let now = clock?.now ?? Date()
        let code = SecureRandom.token()
        let verifier = PKCE.makeVerifier()
        let redirectURI = client.redirectURIs[0]
        try store.insert(
            AuthorizationCode(
                code: code, clientID: client.id, userID: user.id, redirectURI: redirectURI, scopes: scopes,
                codeChallenge: PKCE.challenge(for: verifier), nonce: nonce, authTime: authTime ?? now,
                createdAt: now, expiresAt: now.addingTimeInterval(expiresIn)))
        return IssuedCode(code: code, verifier: verifier, redirectURI: redirectURI)
    }

    // MARK: HTTP

    /// How a request authenticates its client.
    enum ClientCredentials {
        case basic(id: String, secret: String)
        case post(id: String, secret: String)
        case id(String)
        case none
    }

    static func credentials(_ client: Client, secret: String = "s3cret: with &/+=% and ü") -> ClientCredentials {
        client.type == .public ? .id(client.id) : .basic(id: client.id, secret: secret)
    }

    func request(
        _ method: String, _ path: String, form: [(String, String)]? = nil, client: ClientCredentials = .none,
        headers: [String: String] = [:], rawBody: String? = nil
    ) async throws -> ProtocolReply {
        let url = try #require(URL(string: "http://127.0.0.1:\(port)\(path)"))
        var request = URLRequest(url: url)
        request.httpMethod = method
        var pairs = form ?? []
        switch client {
        case .basic(let id, let secret):
            let raw = "\(Self.formEncode(id)):\(Self.formEncode(secret))"
            request.setValue("Basic \(Data(raw.utf8).base64EncodedString())", forHTTPHeaderField: "Authorization")
        case .post(let id, let secret):
            pairs += [("client_id", id), ("client_secret", secret)]
        case .id(let id):
            pairs.append(("client_id", id))
        case .none:
            break
        }
        if form != nil || !pairs.isEmpty {
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(
                pairs.map { "\(Self.formEncode($0.0))=\(Self.formEncode($0.1))" }.joined(separator: "&").utf8)
        }
        if let rawBody { request.httpBody = Data(rawBody.utf8) }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let authorization = request.value(forHTTPHeaderField: "Authorization") ?? ""
        if !authorization.isEmpty && !authorization.hasPrefix("Bearer ") {
            // A 401 answer would carry a Basic challenge, which URLSession on Linux cannot deliver.
            return try ProtocolRawHTTP.send(
                port: port, method: method, path: path, headers: request.allHTTPHeaderFields ?? [:],
                body: request.httpBody)
        }
        let (data, response) = try await Self.session.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name] = value }
        }
        return ProtocolReply(status: http.statusCode, headers: fields, body: data)
    }

    /// POSTs a form to the token endpoint.
    func token(_ form: [(String, String)], client: ClientCredentials) async throws -> ProtocolReply {
        try await request("POST", "/oauth/token", form: form, client: client)
    }

    /// Redeems `code` as the client would.
    func redeem(_ code: IssuedCode, client: ClientCredentials) async throws -> ProtocolReply {
        try await token(
            [
                ("grant_type", "authorization_code"), ("code", code.code), ("redirect_uri", code.redirectURI),
                ("code_verifier", code.verifier),
            ], client: client)
    }

    /// Uses a refresh token.
    func refresh(_ refreshToken: String, client: ClientCredentials, scope: String? = nil) async throws
        -> ProtocolReply
    {
        var form = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
        if let scope { form.append(("scope", scope)) }
        return try await token(form, client: client)
    }

    /// Signs in `user` to `client` for `scopes` and returns the token response.
    func signIn(
        _ user: UserRecord, to client: Client, scopes: [String], nonce: String? = nil,
        credentials: ClientCredentials? = nil
    ) async throws -> ProtocolReply {
        let code = try issueCode(for: client, user: user, scopes: scopes, nonce: nonce)
        let reply = try await redeem(code, client: credentials ?? Self.credentials(client))
        try #require(reply.status == 200, "token endpoint said \(reply.status) \(reply.text)")
        return reply
    }

    /// Calls a resource endpoint with a bearer token.
    func resource(_ path: String, token: String) async throws -> ProtocolReply {
        try await request("GET", path, headers: ["Authorization": "Bearer \(token)"])
    }

    /// Introspects `token` as `client`.
    func introspect(_ token: String, client: ClientCredentials) async throws -> ProtocolReply {
        try await request("POST", "/oauth/introspect", form: [("token", token)], client: client)
    }

    /// A verifier for the provider's published JWKS.
    func jwksVerifier() async throws -> JWSVerifier {
        let reply = try await request("GET", "/oauth/jwks")
        return try JWSVerifier(keySet: try JWKSet(json: reply.text))
    }

    /// Form-urlencoding (RFC 6749 Appendix B): everything but unreserved characters escaped.
    static func formEncode(_ text: String) -> String {
        let allowed = CharacterSet(
            charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 30
        configuration.httpShouldSetCookies = false
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        return URLSession(configuration: configuration)
    }()
}

/// Starts a harness, runs `body`, and shuts it down whatever happens.
func withProtocolHarness<T>(
    clock: ProtocolTestClock? = nil, lifetimes: TokenLifetimes? = nil, keyRefreshInterval: Duration = .seconds(5),
    metrics: Bool = false, _ body: (ProtocolHarness) async throws -> T
) async throws -> T {
    let harness = try ProtocolHarness(
        clock: clock, lifetimes: lifetimes, keyRefreshInterval: keyRefreshInterval, metrics: metrics)
    do {
        let result = try await body(harness)
        harness.shutdown()
        return result
    } catch {
        harness.shutdown()
        throw error
    }
}
