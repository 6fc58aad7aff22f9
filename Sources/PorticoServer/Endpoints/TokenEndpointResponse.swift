import PorticoCrypto
import PorticoHTTP

/// The successful answer of the server's token endpoint (RFC 6749 §5.1, OIDC Core §3.1.3.3).
///
/// Named apart from PorticoKit's `TokenResponse`, the SDK's reading of the same JSON.
struct TokenEndpointResponse: Sendable {
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
    /// `Bearer`, or `DPoP` for an access token bound to a key (RFC 9449 §5).
    var tokenType = "Bearer"
    /// Members a grant adds (RFC 8693's `issued_token_type`, Native SSO's `device_secret`); they
    /// never replace the standard ones.
    var additionalMembers: [String: JSONValue] = [:]

    /// The JSON answer, marked `no-store`.
    func response() -> Response {
        var members = additionalMembers
        members["access_token"] = .string(accessToken)
        members["token_type"] = .string(tokenType)
        members["expires_in"] = .integer(Int64(expiresIn))
        if !scopes.isEmpty { members["scope"] = .string(scopes.joined(separator: " ")) }
        if let refreshToken { members["refresh_token"] = .string(refreshToken) }
        if let idToken { members["id_token"] = .string(idToken) }
        return OAuthEndpoint.json(members)
    }
}
