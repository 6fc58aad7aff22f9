import PorticoCrypto
import PorticoHTTP

/// The successful answer of the token endpoint (RFC 6749 §5.1, OIDC Core §3.1.3.3).
struct TokenResponse: Sendable {
    /// The RFC 9068 access token.
    let accessToken: String
    /// Seconds until the access token expires.
    let expiresIn: Int
    /// The scopes the access token carries.
    let scopes: [String]
    /// A new refresh token, when the grant issues one.
    let refreshToken: String?
    /// An ID token, when `openid` was granted.
    let idToken: String?

    /// The JSON answer, marked `no-store`.
    func response() -> Response {
        var members: [String: JSONValue] = [
            "access_token": .string(accessToken), "token_type": "Bearer", "expires_in": .integer(Int64(expiresIn)),
        ]
        if !scopes.isEmpty { members["scope"] = .string(scopes.joined(separator: " ")) }
        if let refreshToken { members["refresh_token"] = .string(refreshToken) }
        if let idToken { members["id_token"] = .string(idToken) }
        return OAuthEndpoint.json(members)
    }
}
