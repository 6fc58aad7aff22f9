import Foundation
import PorticoCrypto
import PorticoStore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ProviderHarness {
    /// Sends one request to the provider and returns its answer.
    ///
    /// `form` (plus what `client` adds) becomes an `application/x-www-form-urlencoded` body;
    /// `rawBody` replaces it. Requests that carry an `Authorization` other than `Bearer` go
    /// over ``RawHTTPClient``: a 401 to them carries a Basic challenge, which URLSession on
    /// Linux cannot deliver.
    public func request(
        _ method: String, _ path: String, form: [(String, String)]? = nil, client: ClientCredentials = .none,
        headers: [String: String] = [:], rawBody: String? = nil
    ) async throws -> TestReply {
        let url = try URL(string: base + path).required("a URL from \(path)")
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
            request.httpBody = Data(Self.formEncode(pairs).utf8)
        }
        if let rawBody { request.httpBody = Data(rawBody.utf8) }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let authorization = request.value(forHTTPHeaderField: "Authorization") ?? ""
        if !authorization.isEmpty && !authorization.hasPrefix("Bearer ") {
            return try RawHTTPClient.send(
                host: configuration.host, port: port, method: method, path: path,
                headers: request.allHTTPHeaderFields ?? [:], body: request.httpBody)
        }
        let (data, response) = try await TestSessions.plain.data(for: request)
        return try TestReply(response, data: data)
    }

    /// A GET, with a bearer token when given.
    public func get(_ path: String, bearer: String? = nil) async throws -> TestReply {
        try await request("GET", path, headers: bearer.map { ["Authorization": "Bearer \($0)"] } ?? [:])
    }

    /// POSTs a form, authenticating as `client`.
    public func post(_ path: String, _ form: [(String, String)], client: ClientCredentials = .none) async throws
        -> TestReply
    {
        try await request("POST", path, form: form, client: client)
    }

    /// POSTs a form to the token endpoint.
    public func token(_ form: [(String, String)], client: ClientCredentials) async throws -> TestReply {
        try await post("/oauth/token", form, client: client)
    }

    /// Redeems `code` as the client would.
    public func redeem(_ code: IssuedCode, client: ClientCredentials) async throws -> TestReply {
        try await token(
            [
                ("grant_type", "authorization_code"), ("code", code.code), ("redirect_uri", code.redirectURI),
                ("code_verifier", code.verifier),
            ], client: client)
    }

    /// Uses a refresh token.
    public func refresh(_ refreshToken: String, client: ClientCredentials, scope: String? = nil) async throws
        -> TestReply
    {
        var form = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
        if let scope { form.append(("scope", scope)) }
        return try await token(form, client: client)
    }

    /// Signs in `user` to `client` for `scopes` (a stored code, redeemed at the token
    /// endpoint) and returns the token response, which must be a success.
    public func signIn(
        _ user: UserRecord, to client: Client, scopes: [String], nonce: String? = nil,
        credentials: ClientCredentials? = nil
    ) async throws -> TestReply {
        let code = try issueCode(for: client, user: user, scopes: scopes, nonce: nonce)
        let reply = try await redeem(code, client: credentials ?? .of(client))
        guard reply.status == 200 else { throw HarnessFailure("token endpoint said \(reply.status) \(reply.text)") }
        return reply
    }

    /// Calls a resource endpoint with a bearer token.
    public func resource(_ path: String, token: String) async throws -> TestReply {
        try await get(path, bearer: token)
    }

    /// Introspects `token` as `client`.
    public func introspect(_ token: String, client: ClientCredentials) async throws -> TestReply {
        try await post("/oauth/introspect", [("token", token)], client: client)
    }

    /// A verifier for the provider's published JWKS.
    public func jwksVerifier() async throws -> JWSVerifier {
        let reply = try await get("/oauth/jwks")
        return try JWSVerifier(keySet: try JWKSet(json: reply.text))
    }

    /// A browser with an empty cookie jar, pointed at this provider.
    public func browser(acceptLanguage: String? = nil) -> TestBrowser {
        TestBrowser(base: base, acceptLanguage: acceptLanguage)
    }

    /// Form-urlencoding (RFC 6749 Appendix B): everything but unreserved characters escaped.
    public static func formEncode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    /// `name=value&…`, form-urlencoded.
    public static func formEncode(_ fields: [(String, String)]) -> String {
        fields.map { "\(formEncode($0.0))=\(formEncode($0.1))" }.joined(separator: "&")
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}

extension ProviderHarness {
    /// The URLSession ``request(_:_:form:client:headers:rawBody:)`` uses, for tests that fetch
    /// a URL of their own (another host, a provider they started differently).
    public static var session: URLSession { TestSessions.plain }
}
