/// The token type URIs of token exchange (RFC 8693 §3) and Native SSO.
enum TokenTypeIdentifier {
    /// An OAuth access token.
    static let accessToken = "urn:ietf:params:oauth:token-type:access_token"
    /// An OAuth refresh token.
    static let refreshToken = "urn:ietf:params:oauth:token-type:refresh_token"
    /// An OpenID Connect ID token.
    static let idToken = "urn:ietf:params:oauth:token-type:id_token"
    /// A Native SSO device secret (OpenID Connect Native SSO for Mobile Apps 1.0 §4.1).
    static let deviceSecret = "urn:openid:params:token-type:device-secret"
    /// The device secret's type in Okta's earlier implementation of the draft, still sent by
    /// apps built against it.
    static let oktaDeviceSecret = "urn:x-oath:params:oauth:token-type:device-secret"

    /// Whether `type` names a device secret, in either spelling.
    static func isDeviceSecret(_ type: String) -> Bool {
        type == deviceSecret || type == oktaDeviceSecret
    }
}
