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
    /// The key the authorization was bound to before this request (an authorization code's
    /// `dpop_jkt`, RFC 9449 §10): the request's proof must be made with it.
    var requiredProofKey: String? = nil
    /// What is known of a DPoP key the refresh family may be bound to (``SenderConstraintStep``).
    var refreshFamilyKey = RefreshFamilyKey.newFamily
}

/// What a grant knows of the DPoP key its refresh family is bound to, so that
/// ``SenderConstraintStep`` reads the binding only when it may exist.
enum RefreshFamilyKey: Sendable {
    /// The family is created by this request (or there is none): nothing is bound yet.
    case newFamily
    /// An existing family, its binding not read (a refresh in a transaction).
    case unknown
    /// An existing family known to be bound to no key (the one-statement refresh rotates only those).
    case unbound
}
