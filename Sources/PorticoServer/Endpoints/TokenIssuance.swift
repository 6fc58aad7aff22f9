import PorticoCrypto

/// What a grant decided to issue, before anything is signed: ``TokenIssuer/response(for:)``
/// turns it into the answer.
///
/// Grants decide inside their store transaction and sign after it commits; this value is what
/// crosses that line.
struct TokenIssuance: Sendable {
    /// The access token to sign.
    var accessToken: TokenIssuer.AccessTokenGrant
    /// The person and client an ID token would speak of; one is issued when its scopes include
    /// `openid`. Nil when no person is involved (client credentials).
    var identity: TokenIssuer.IdentityGrant?
    /// The refresh token, already stored (only its hash).
    var refreshToken: String?
    /// Members of the grant's own in the answer (`issued_token_type`, `device_secret`).
    var additionalMembers: [String: JSONValue] = [:]
    /// The grant's last removal, when the grant already read it with its own statement (the
    /// one-statement refresh); nil when nobody has, and ``RevocationOrderStep`` reads it.
    var knownGrantRevocation: KnownGrantRevocation?
}
