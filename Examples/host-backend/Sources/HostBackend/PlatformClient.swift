import Foundation
import PorticoCrypto
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The host backend's calls to the platform (the provider), as the confidential host client:
/// code redemption, account links, the mini-program delegation exchange, and the JWKS that
/// back-channel logout tokens are verified with.
public final class PlatformClient: Sendable {
    /// The provider's issuer.
    public let issuer: URL
    /// The host's client id there.
    public let clientID: String
    private let clientSecret: String
    private let session: URLSession
    private let metadata = Mutex<[String: String]?>(nil)

    /// A client of `issuer` as `clientID` with `clientSecret`.
    public init(issuer: URL, clientID: String, clientSecret: String) {
        self.issuer = issuer
        self.clientID = clientID
        self.clientSecret = clientSecret
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 15
        session = URLSession(configuration: configuration)
    }

    /// What the provider answered: its status and JSON members.
    public struct Reply: Sendable {
        /// The HTTP status.
        public let status: Int
        /// The JSON object, empty when the body was none.
        public let json: [String: JSONValue]
        /// The provider's `DPoP-Nonce` header, when it sent one (RFC 9449 §8).
        public var dpopNonce: String? = nil

        /// Whether the provider refused a DPoP proof for want of its nonce: the host app must
        /// sign a new proof with ``dpopNonce``, since only the app holds the key.
        public var wantsDPoPNonce: Bool { status == 400 && string("error") == "use_dpop_nonce" && dpopNonce != nil }

        func string(_ name: String) -> String? { json[name]?.stringValue }
    }

    /// The issuer as the discovery document states it (the one `iss` claims must carry).
    public func issuerIdentifier() async throws -> String {
        try await discovered("issuer")
    }

    /// Redeems an authorization code the host app got.
    public func redeem(code: String, verifier: String, redirectURI: String) async throws -> Reply {
        try await post(
            try await endpoint("token_endpoint"),
            [
                ("grant_type", "authorization_code"), ("code", code), ("code_verifier", verifier),
                ("redirect_uri", redirectURI),
            ])
    }

    /// Pushes the host app's authorization request (RFC 9126) as the confidential host client:
    /// the app cannot authenticate from the device, so its request comes here and goes on with
    /// the client's credentials. `client_id` and credentials the app sent are dropped.
    public func push(_ parameters: [(name: String, value: String)]) async throws -> Reply {
        let authentication: Set<String> = ["client_id", "client_secret", "client_assertion", "client_assertion_type"]
        return try await post(
            try await endpoint("pushed_authorization_request_endpoint"),
            parameters.filter { !authentication.contains($0.name) }.map { ($0.name, $0.value) })
    }

    /// `POST /oauth/account-links`: links the person of `accessToken` to `hostUserID`.
    public func link(accessToken: String, hostUserID: String) async throws -> Reply {
        try await post(accountLinks, [("access_token", accessToken), ("host_user_id", hostUserID)])
    }

    /// `DELETE /oauth/account-links/{linkID}`: unbinds.
    public func unlink(_ linkID: String) async throws -> Reply {
        // Unreserved characters stay as they are: link ids are base64url (`-`, `_`).
        var unreserved = CharacterSet.alphanumerics
        unreserved.insert(charactersIn: "-._~")
        let encoded = linkID.addingPercentEncoding(withAllowedCharacters: unreserved) ?? linkID
        var request = URLRequest(url: accountLinks.appendingPathComponent(encoded))
        request.httpMethod = "DELETE"
        return try await send(request)
    }

    /// The mini-program delegation exchange (RFC 8693): the person's access token for a token of
    /// the mini-program `audience`.
    ///
    /// With `proof` (a DPoP proof the host app signed with its installation key, forwarded
    /// untouched as the `DPoP` header) the provider binds the issued token to the app's key
    /// (`token_type` `DPoP`, `cnf.jkt`): the backend never holds that key, so the token is of no
    /// use to whoever copies it off the backend or the container. Without one it is a bearer
    /// token.
    public func exchange(_ accessToken: String, audience: String, proof: String? = nil) async throws -> Reply {
        try await post(
            try await endpoint("token_endpoint"),
            [
                ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"), ("subject_token", accessToken),
                ("subject_token_type", "urn:ietf:params:oauth:token-type:access_token"), ("audience", audience),
            ], headers: proof.map { ["DPoP": $0] } ?? [:])
    }

    /// The provider's current public keys.
    public func keySet() async throws -> JWKSet {
        let (data, response) = try await session.data(from: try await endpoint("jwks_uri"))
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw HostBackendError(.serviceUnavailable, "platform_unavailable", "the provider's JWKS did not load")
        }
        return try JWKSet(json: String(decoding: data, as: UTF8.self))
    }

    /// Makes the client's Shared Signals stream push `events` to `receiver` (SSF 1.0 §8.1):
    /// with a client-credentials token of scope `ssf.manage`, creates the stream, or, when it
    /// has one already, updates it.
    public func pushSecurityEvents(to receiver: String, events: [String]) async throws {
        let tokenReply = try await post(
            try await endpoint("token_endpoint"), [("grant_type", "client_credentials"), ("scope", "ssf.manage")])
        guard let token = tokenReply.string("access_token") else {
            throw HostBackendError(
                .serviceUnavailable, "ssf_unavailable",
                "no ssf.manage token (register the host with --ssf): \(tokenReply.json)")
        }
        let streams = issuer.appendingPathComponent("ssf").appendingPathComponent("stream")
        var configuration: [String: JSONValue] = [
            "delivery": ["method": "urn:ietf:rfc:8935", "endpoint_url": .string(receiver)],
            "events_requested": .array(events.map(JSONValue.string)),
        ]
        var request = URLRequest(url: streams)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.httpBody = Data(JSONValue.object(configuration).jsonString.utf8)
        var reply = try await send(request, authenticated: false)
        if reply.status == 409 {
            var list = URLRequest(url: streams)
            list.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            let (data, _) = try await session.data(for: list)
            guard let id = JSONValue(parsing: Array(data))?.arrayValue?.first?.objectValue?["stream_id"]?.stringValue
            else {
                throw HostBackendError(.serviceUnavailable, "ssf_unavailable", "the existing stream cannot be read")
            }
            configuration["stream_id"] = .string(id)
            request.httpMethod = "PATCH"
            request.httpBody = Data(JSONValue.object(configuration).jsonString.utf8)
            reply = try await send(request, authenticated: false)
        }
        guard reply.status == 200 || reply.status == 201 else {
            throw HostBackendError(.serviceUnavailable, "ssf_unavailable", "the stream was refused: \(reply.json)")
        }
    }

    private var accountLinks: URL { issuer.appendingPathComponent("oauth").appendingPathComponent("account-links") }

    private func endpoint(_ name: String) async throws -> URL {
        let text = try await discovered(name)
        guard let url = URL(string: text) else {
            throw HostBackendError(.serviceUnavailable, "platform_unavailable", "the provider's \(name) is not a URL")
        }
        return url
    }

    private func discovered(_ name: String) async throws -> String {
        if let value = metadata.withLock({ $0?[name] }) { return value }
        let url = issuer.appendingPathComponent(".well-known").appendingPathComponent("openid-configuration")
        let reply = try await send(URLRequest(url: url), authenticated: false)
        guard reply.status == 200 else {
            throw HostBackendError(.serviceUnavailable, "platform_unavailable", "discovery answered \(reply.status)")
        }
        var values: [String: String] = [:]
        for (key, value) in reply.json { if let text = value.stringValue { values[key] = text } }
        metadata.withLock { $0 = values }
        guard let value = values[name] else {
            throw HostBackendError(.serviceUnavailable, "platform_unavailable", "discovery has no \(name)")
        }
        return value
    }

    private func post(_ url: URL, _ form: [(String, String)], headers: [String: String] = [:]) async throws -> Reply {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(
            form.map { "\(Self.formEncode($0.0))=\(Self.formEncode($0.1))" }.joined(separator: "&").utf8)
        return try await send(request)
    }

    private func send(_ request: URLRequest, authenticated: Bool = true) async throws -> Reply {
        var request = request
        if authenticated {
            // RFC 6749 §2.3.1: each part form-encoded, then Basic.
            let credentials = "\(Self.formEncode(clientID)):\(Self.formEncode(clientSecret))"
            request.setValue(
                "Basic " + Data(credentials.utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        }
        let data: Data
        let response: URLResponse
        do { (data, response) = try await session.data(for: request) } catch {
            throw HostBackendError(
                .serviceUnavailable, "platform_unavailable",
                "the provider could not be reached: \(error.localizedDescription)")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let json = JSONValue(parsing: Array(data))?.objectValue ?? [:]
        let nonce = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "DPoP-Nonce")
        return Reply(status: status, json: json, dpopNonce: nonce)
    }

    /// `application/x-www-form-urlencoded` for one name or value.
    static func formEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._*")
        return (text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text).replacingOccurrences(
            of: "%20", with: "+")
    }
}
