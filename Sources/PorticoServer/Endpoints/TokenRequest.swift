/// A token request as a grant sees it: the form, the client it came from, and the
/// `grant_type` exactly as sent (a grant answering several dialects may read them apart).
struct TokenRequest: Sendable {
    /// The form parameters.
    let parameters: OAuthParameters
    /// The authenticated client, registered for the grant.
    let client: AuthenticatedClient
    /// The `grant_type` as sent: the standard one or one of the grant's dialects.
    let grantType: String
    /// The DPoP proof (RFC 9449) the request came with, checked but for replay
    /// (``SenderConstraintStep`` records it); nil for a bearer request.
    var proof: DPoPProof? = nil
}
