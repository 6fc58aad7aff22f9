import Foundation

/// An authorization code between the authorization and token endpoints.
///
/// Single use and short-lived (60 s in the DESIGN). The code itself is never stored, only its
/// SHA-256 in ``hashedCode``. Once redeemed it remembers what it issued, so that a replayed
/// code can revoke those tokens (OAuth 2.1 §4.1.3).
public struct AuthorizationCode: Sendable, Hashable {
    /// SHA-256 of the code, base64url; the reference for ``StoreTransaction/recordIssuance(forCode:refreshFamilyID:accessTokenID:accessTokenExpiresAt:)``.
    public let hashedCode: String
    /// The client it was issued to.
    public var clientID: String
    /// The person who authorized it.
    public var userID: String
    /// The redirect URI of the authorization request, which the token request must repeat.
    public var redirectURI: String
    /// The granted scopes.
    public var scopes: [String]
    /// The PKCE `code_challenge` (S256).
    public var codeChallenge: String
    /// The OIDC `nonce` to put into the ID token.
    public var nonce: String?
    /// When the person last authenticated: the ID token's `auth_time`.
    public var authTime: Date
    /// The browser session it came from, if any (for front-channel logout).
    public var sessionHashedID: String?
    /// When it was issued.
    public var createdAt: Date
    /// When it stops being redeemable.
    public var expiresAt: Date
    /// When it was redeemed; nil while unused.
    public var consumedAt: Date?
    /// The refresh-token family its redemption created.
    public var issuedRefreshFamilyID: String?
    /// The `jti` of the access token its redemption issued.
    public var issuedAccessTokenID: String?
    /// When that access token expires (how long its revocation must be remembered).
    public var issuedAccessTokenExpiresAt: Date?
    /// The resource server (RFC 8707) the authorization request named: the access token's
    /// `aud`; nil for tokens meant for the provider.
    public var resource: String? = nil
    /// The thumbprint of the DPoP key the authorization request named with `dpop_jkt` (RFC 9449
    /// §10): the code is redeemed only with a proof made with that key. Nil for an unbound code.
    public var dpopKeyThumbprint: String? = nil

    /// A code ready to insert for the plain `code`; only its hash is kept.
    public init(
        code: String, clientID: String, userID: String, redirectURI: String, scopes: [String], codeChallenge: String,
        nonce: String? = nil, authTime: Date, sessionHashedID: String? = nil, createdAt: Date = Date(),
        expiresAt: Date
    ) {
        self.init(
            hashedCode: SecretHash.reference(code), clientID: clientID, userID: userID, redirectURI: redirectURI,
            scopes: scopes, codeChallenge: codeChallenge, nonce: nonce, authTime: authTime,
            sessionHashedID: sessionHashedID, createdAt: createdAt, expiresAt: expiresAt, consumedAt: nil,
            issuedRefreshFamilyID: nil, issuedAccessTokenID: nil, issuedAccessTokenExpiresAt: nil)
    }

    /// A code as stored (backends only).
    public init(
        hashedCode: String, clientID: String, userID: String, redirectURI: String, scopes: [String],
        codeChallenge: String, nonce: String?, authTime: Date, sessionHashedID: String?, createdAt: Date,
        expiresAt: Date, consumedAt: Date?, issuedRefreshFamilyID: String?, issuedAccessTokenID: String?,
        issuedAccessTokenExpiresAt: Date?
    ) {
        self.hashedCode = hashedCode
        self.clientID = clientID
        self.userID = userID
        self.redirectURI = redirectURI
        self.scopes = scopes
        self.codeChallenge = codeChallenge
        self.nonce = nonce
        self.authTime = authTime
        self.sessionHashedID = sessionHashedID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.consumedAt = consumedAt
        self.issuedRefreshFamilyID = issuedRefreshFamilyID
        self.issuedAccessTokenID = issuedAccessTokenID
        self.issuedAccessTokenExpiresAt = issuedAccessTokenExpiresAt
    }
}
