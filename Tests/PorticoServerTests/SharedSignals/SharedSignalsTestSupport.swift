import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore
import PorticoTesting
import Synchronization
import Testing

@testable import PorticoServer

/// A Shared Signals receiver's push endpoint (RFC 8935) on a loopback port: records every SET
/// POSTed to ``path`` with its content type, and answers 202, or a status (and RFC 8935 error
/// body) a test sets.
final class SETReceiver: Sendable {
    static let path = "/events"
    private let server: HTTPServer
    private let state = State()

    private final class State: Sendable {
        let received = Mutex<[(token: String, contentType: String?)]>([])
        let answer = Mutex<(HTTPStatus, String)>((HTTPStatus(rawValue: 202), ""))
    }

    init() throws {
        let router = Router()
        let state = state
        router.post(Self.path) { request in
            state.received.withLock {
                $0.append((String(decoding: request.body, as: UTF8.self), request.headers["Content-Type"]))
            }
            let (status, body) = state.answer.withLock { $0 }
            return body.isEmpty ? Response(status: status) : Response.json(raw: body, status: status)
        }
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.threads = 1
        configuration.logRequests = false
        server = HTTPServer(configuration: configuration, router: router)
        try server.start()
    }

    deinit { server.shutdown(timeout: .seconds(2)) }

    var uri: String { "http://127.0.0.1:\(server.port)\(Self.path)" }
    var tokens: [String] { state.received.withLock { $0.map(\.token) } }
    var contentTypes: [String?] { state.received.withLock { $0.map(\.contentType) } }

    func answer(_ status: Int, body: String = "") {
        state.answer.withLock { $0 = (HTTPStatus(rawValue: status), body) }
    }
}

extension ProviderHarness {
    /// A confidential client registered as `portico client add --ssf --grant client_credentials
    /// --grant authorization_code` registers it, with a known secret; its SETs are signed with
    /// `idTokenAlgorithm`.
    func addSignalReceiver(name: String, pairwise: Bool = false, idTokenAlgorithm: String = "RS256") throws -> Client {
        var registration = ClientRegistration(
            name: name, redirectURIs: ["https://\(name.lowercased()).example/cb"],
            scopes: ["openid", "profile", "email"], grantTypes: ["authorization_code", "client_credentials"])
        registration.isSignalReceiver = true
        registration.idTokenSigningAlgorithm = idTokenAlgorithm
        if pairwise { registration.subjectType = "pairwise" }
        let client = try registration.validatedClient(id: RecordIdentifier.random(), secret: "secret", store: store)
        try store.insert(client)
        return client
    }

    /// A client-credentials access token of `client` (secret `secret`), for `scope` if given.
    func streamToken(for client: Client, scope: String? = nil) async throws -> String {
        var form = [("grant_type", "client_credentials")]
        if let scope { form.append(("scope", scope)) }
        let reply = try await token(form, client: .basic(id: client.id, secret: "secret"))
        return try #require(reply.string("access_token"), "no token: \(reply.status) \(reply.text)")
    }

    /// A JSON request with a bearer token.
    func json(_ method: String, _ path: String, token: String?, body: JSONValue? = nil) async throws -> TestReply {
        var headers = ["Content-Type": "application/json"]
        if let token { headers["Authorization"] = "Bearer \(token)" }
        return try await request(method, path, headers: headers, rawBody: body?.jsonString)
    }

    /// Creates the stream of the token's client.
    func createStream(token: String, delivery: JSONValue, events: [SharedSignals.Event]? = nil) async throws
        -> String
    {
        var body: [String: JSONValue] = ["delivery": delivery]
        if let events { body["events_requested"] = .array(events.map { .string($0.rawValue) }) }
        let reply = try await json("POST", SharedSignals.configurationPath, token: token, body: .object(body))
        #expect(reply.status == 201, "\(reply.text)")
        return try #require(reply.string("stream_id"))
    }

    /// The claims of a SET from this provider, after checking what RFC 8417 and SSF require of
    /// it: a signature by a key of the JWKS, `typ: secevent+jwt`, `iss`, `aud` the client,
    /// `iat`, `jti`, `sub_id`, exactly one event, and no `exp` or `sub`.
    func verifiedSET(_ token: String, for client: Client) async throws -> JWTClaims {
        let verifier = try await jwksVerifier()
        let algorithm = try #require(SignatureAlgorithm(rawValue: client.idTokenSigningAlgorithm))
        let verified = try verifier.verify(token, algorithms: [algorithm], type: SharedSignals.tokenType)
        #expect(verified.header.type == SharedSignals.tokenType)
        let claims = try JWTClaims(json: verified.payload)
        #expect(claims.issuer == issuer)
        #expect(claims.audience == [client.id])
        #expect(claims.issuedAt != nil)
        #expect(claims.jwtID?.isEmpty == false)
        #expect(claims.subject == nil && claims.expiresAt == nil)
        #expect(claims["sub_id"]?.objectValue != nil)
        #expect(claims["events"]?.objectValue?.count == 1)
        return claims
    }
}

extension JWTClaims {
    /// The one event's type and members.
    var event: (type: String, fields: [String: JSONValue])? {
        guard let (type, value) = self["events"]?.objectValue?.first, let fields = value.objectValue else {
            return nil
        }
        return (type, fields)
    }
}

/// Short delivery intervals for push tests, loopback allowed.
func signalConfiguration() -> ProviderConfiguration {
    .testing { configuration in
        configuration.allowsLoopbackCallbacks = true
        configuration.backchannelLogout = BackChannelLogoutSettings(
            pollInterval: .milliseconds(20), requestTimeout: .seconds(3), firstRetryDelay: .milliseconds(100),
            maximumRetryDelay: .milliseconds(400))
    }
}
