import Foundation

/// What a ``TokenStore`` keeps for one provider and client: the tokens, their expiry and
/// scopes, the verified ID-token claims and the cached profile.
///
/// Its `description` never shows a token, so a grant can be logged or printed safely.
public struct StoredGrant: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The current access token.
    public var accessToken: String
    /// When ``accessToken`` expires; nil when the provider did not say.
    public var expiresAt: Date?
    /// The refresh token, when the provider issued one.
    public var refreshToken: String?
    /// The granted scope names.
    public var scopes: [String]
    /// The last ID token as the provider issued it (verified), for a backend that verifies it
    /// itself and for `id_token_hint` at sign-out.
    public var idToken: String?
    /// The claims of the last verified ID token (`sub`, `auth_time`, ...), when `openid` was granted.
    public var idTokenClaims: [String: ProfileValue]?
    /// The profile as last fetched.
    public var user: User?
    /// When ``user`` was fetched; the profile is fetched again when this is old.
    public var userFetchedAt: Date?
    /// The access token's type: `DPoP` when the provider bound it (and the refresh token) to
    /// the installation's ``DPoPKey`` (RFC 9449), so every use needs a proof; nil or `Bearer`
    /// for a bearer token. Optional so that grants stored before DPoP still decode.
    public var tokenType: String?
    /// Access tokens for resource servers, by resource URI (optional so that grants stored
    /// before there were any still decode).
    var resourceTokenTable: [String: ResourceToken]?

    /// Access tokens for resource servers, by resource URI
    /// (``AuthorizationManager/accessToken(for:minimumLifetime:)``).
    var resourceTokens: [String: ResourceToken] {
        get { resourceTokenTable ?? [:] }
        set { resourceTokenTable = newValue.isEmpty ? nil : newValue }
    }

    /// A grant with these values.
    public init(
        accessToken: String, expiresAt: Date?, refreshToken: String?, scopes: [String],
        idTokenClaims: [String: ProfileValue]? = nil, user: User? = nil, userFetchedAt: Date? = nil,
        idToken: String? = nil, tokenType: String? = nil
    ) {
        self.idToken = idToken
        self.tokenType = tokenType
        self.accessToken = accessToken
        self.expiresAt = expiresAt
        self.refreshToken = refreshToken
        self.scopes = scopes
        self.idTokenClaims = idTokenClaims
        self.user = user
        self.userFetchedAt = userFetchedAt
    }

    /// Whether the access token is still good for at least `margin` seconds at `now`.
    func hasFreshAccessToken(at now: Date, margin: TimeInterval) -> Bool {
        guard let expiresAt else { return true }
        return now.addingTimeInterval(margin) < expiresAt
    }

    /// Whether the tokens are bound to the installation's DPoP key.
    var isDPoPBound: Bool {
        tokenType?.caseInsensitiveCompare("DPoP") == .orderedSame
    }

    /// Whether the grant covers every scope in `names`.
    func covers(_ names: [String]) -> Bool {
        Set(names).isSubset(of: Set(scopes))
    }

    /// Scopes and expiry only; the tokens are redacted.
    public var description: String {
        "StoredGrant(accessToken: <redacted>, refreshToken: \(refreshToken == nil ? "none" : "<redacted>"), "
            + "expiresAt: \(expiresAt.map { "\($0)" } ?? "unknown"), scopes: \(scopes.joined(separator: " ")))"
    }
}
