import Foundation

/// What a successful authorization hands the app (LWA's `AMZNAuthorizeResult`).
///
/// For `.accessToken` it carries the access token, its expiry and scopes, and the user when a
/// profile scope was granted (fetched in the same call, so no second call is needed). For
/// `.authorizationCode` it carries the code and the PKCE verifier for the app's backend instead.
public struct AuthorizeResult: Sendable, CustomStringConvertible {
    /// The access token (`.accessToken` only); send it as `Authorization: Bearer`.
    public let accessToken: String?
    /// When ``accessToken`` stops working.
    public let expiresAt: Date?
    /// The scopes the provider granted, which may be fewer than requested.
    public let grantedScopes: [Scope]
    /// The client id the grant belongs to.
    public let clientID: String
    /// The redirect URI the code was delivered to (with the loopback port actually used); the
    /// backend needs it to redeem an ``authorizationCode``.
    public let redirectURI: URL?
    /// The raw ID token (when `openid` was granted), verified; a backend verifies it again.
    public let idToken: String?
    /// The person, when a profile scope was granted and the profile could be read.
    public let user: User?
    /// Why ``user`` is nil although a profile scope was granted: the sign-in succeeded, but the
    /// profile could not be read just now (``AuthorizationManager/fetchUser()`` tries again).
    public let userError: AuthorizationError?
    /// The authorization code (`.authorizationCode` only).
    public let authorizationCode: String?
    /// The PKCE verifier for ``authorizationCode`` (nil when the app supplied its own challenge).
    public let codeVerifier: String?
    /// The PKCE `S256` challenge that was sent, as LWA exposes it.
    public let codeChallenge: String?

    init(
        accessToken: String?, expiresAt: Date?, grantedScopes: [Scope], clientID: String, redirectURI: URL?,
        user: User?, userError: AuthorizationError? = nil, idToken: String? = nil, authorizationCode: String? = nil,
        codeVerifier: String? = nil, codeChallenge: String? = nil
    ) {
        self.userError = userError
        self.idToken = idToken
        self.accessToken = accessToken
        self.expiresAt = expiresAt
        self.grantedScopes = grantedScopes
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.user = user
        self.authorizationCode = authorizationCode
        self.codeVerifier = codeVerifier
        self.codeChallenge = codeChallenge
    }

    /// Scopes, client and expiry; tokens, codes and verifiers are never printed.
    public var description: String {
        var parts = ["clientID: \(clientID)", "grantedScopes: \(grantedScopes.map(\.name).joined(separator: " "))"]
        if accessToken != nil { parts.append("accessToken: <redacted>") }
        if let expiresAt { parts.append("expiresAt: \(expiresAt)") }
        if authorizationCode != nil { parts.append("authorizationCode: <redacted>") }
        if idToken != nil { parts.append("idToken: <redacted>") }
        if let user { parts.append("user: \(user)") }
        return "AuthorizeResult(\(parts.joined(separator: ", ")))"
    }
}
