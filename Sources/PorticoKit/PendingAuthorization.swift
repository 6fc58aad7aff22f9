import Foundation

/// The secrets of one interactive authorization: `state`, `nonce` and the PKCE pair.
///
/// Made fresh for every attempt from 256 bits of the platform's secure randomness; nothing here is reused,
/// stored, or logged.
struct PendingAuthorization: Sendable {
    /// Binds the callback to this attempt (RFC 6749 §10.12).
    let state: String
    /// Binds the ID token to this attempt; sent only when `openid` is requested.
    let nonce: String?
    /// The PKCE verifier, nil when the app brought its own challenge.
    let codeVerifier: String?
    /// The `S256` challenge sent with the request.
    let codeChallenge: String
    /// The scope names asked for.
    let scopes: [String]
    /// The request as the app made it.
    let request: AuthorizeRequest

    init(request: AuthorizeRequest) {
        state = Self.randomToken()
        scopes = request.scopeNames
        nonce = scopes.contains(Scope.openID.name) ? Self.randomToken() : nil
        if request.grantType == .authorizationCode, let challenge = request.codeChallenge {
            codeVerifier = nil
            codeChallenge = challenge
        } else {
            let verifier = Self.randomToken()
            codeVerifier = verifier
            codeChallenge = Self.challenge(for: verifier)
        }
        self.request = request
    }

    /// 256 random bits, base64url: 43 characters, a legal PKCE verifier (RFC 7636 §4.1).
    static func randomToken() -> String {
        Base64URLCoding.encode(PlatformCrypto.randomBytes(32))
    }

    /// The `S256` challenge for `verifier`: base64url(SHA-256(ASCII(verifier))).
    static func challenge(for verifier: String) -> String {
        Base64URLCoding.encode(PlatformCrypto.sha256(Array(verifier.utf8)))
    }

    /// The authorization request URL for `provider`, `clientID` and `redirectURI`: the
    /// endpoint's own query kept, then the app's extra parameters, then the SDK's, which the
    /// extras cannot override.
    func authorizationURL(provider: Provider, clientID: String, redirectURI: URL) -> URL {
        let parameters = authorizationParameters(clientID: clientID, redirectURI: redirectURI)
        return Self.url(provider.authorizationEndpoint, adding: parameters.map { ($0.name, $0.value) })
    }

    /// The URL that sends the browser with a pushed request (RFC 9126 §4): only `client_id`
    /// and the `request_uri` the provider answered.
    func pushedAuthorizationURL(provider: Provider, clientID: String, requestURI: String) -> URL {
        Self.url(provider.authorizationEndpoint, adding: [("client_id", clientID), ("request_uri", requestURI)])
    }

    /// The parameters of this authorization request, the app's extras first and the SDK's
    /// after them (the extras cannot override the SDK's): what the URL carries, or what is pushed.
    ///
    /// - Parameter impliesLogin: whether `.always` without a `prompt` of the app's asks for
    ///   `prompt=login`, as it does in a browser; the companion has its own sign-in and sends
    ///   only the app's `prompt`.
    func authorizationParameters(
        clientID: String, redirectURI: URL, impliesLogin: Bool = true
    ) -> [(name: String, value: String)] {
        var own: [(String, String)] = [
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI.absoluteString),
            ("scope", scopes.joined(separator: " ")), ("state", state), ("code_challenge", codeChallenge),
            ("code_challenge_method", "S256"),
        ]
        if let nonce { own.append(("nonce", nonce)) }
        if let maxAge = request.maxAge { own.append(("max_age", String(Int(maxAge.rounded(.down))))) }
        var scopeData: [String: ProfileValue] = [:]
        for scope in request.scopes { if let data = scope.data { scopeData[scope.name] = .object(data) } }
        if !scopeData.isEmpty { own.append(("scope_data", ProfileValue.object(scopeData).jsonString)) }
        if let hint = request.loginHint { own.append(("login_hint", hint)) }
        if let prompt = request.prompt ?? (impliesLogin && request.interactiveStrategy == .always ? "login" : nil) {
            own.append(("prompt", prompt))
        }
        let reserved = Set(own.map(\.0))
        let extra = request.additionalParameters.sorted { $0.key < $1.key }.filter { !reserved.contains($0.key) }
        return (extra.map { ($0.key, $0.value) } + own).map { (name: $0.0, value: $0.1) }
    }

    /// `endpoint` with `fields` appended to its own query.
    private static func url(_ endpoint: URL, adding fields: [(String, String)]) -> URL {
        var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)
        let existing = components?.percentEncodedQuery.map { $0.isEmpty ? "" : $0 + "&" } ?? ""
        components?.percentEncodedQuery = existing + FormEncoding.encode(fields)
        return components?.url ?? endpoint
    }
}
