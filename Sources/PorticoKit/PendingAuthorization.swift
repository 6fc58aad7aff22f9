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
        if let prompt = request.prompt ?? (request.interactiveStrategy == .always ? "login" : nil) {
            own.append(("prompt", prompt))
        }
        let reserved = Set(own.map(\.0))
        let extra = request.additionalParameters.sorted { $0.key < $1.key }.filter { !reserved.contains($0.key) }
        var components = URLComponents(url: provider.authorizationEndpoint, resolvingAgainstBaseURL: false)
        let existing = components?.percentEncodedQuery.map { $0.isEmpty ? "" : $0 + "&" } ?? ""
        components?.percentEncodedQuery = existing + FormEncoding.encode(extra.map { ($0.key, $0.value) } + own)
        return components?.url ?? provider.authorizationEndpoint
    }
}
