import Foundation

/// Pushes an authorization request to the provider's PAR endpoint (RFC 9126) as a public
/// client: `client_id` in the form, as at the token endpoint.
///
/// With a key, the push carries a DPoP proof, which binds the code to that key (RFC 9449
/// §10.1) without `dpop_jkt`; the post goes through ``TokenEndpointClient``, so a
/// `use_dpop_nonce` answer here is retried once with the server's nonce exactly as at the token
/// endpoint.
struct PushedAuthorizationClient: Sendable {
    let http: HTTPClient
    /// The key whose proof binds the code; nil pushes without a proof.
    let dpopKey: DPoPKey?

    /// Posts `request` and returns the provider's `request_uri`; an OAuth error answer throws
    /// an ``AuthorizationError`` with the provider's `error` and `error_description`.
    func push(_ request: PushedAuthorizationRequest) async throws(AuthorizationError) -> PushedAuthorizationResponse {
        let poster = TokenEndpointClient(http: http, dpopKey: dpopKey)
        return try PushedAuthorizationResponse(reply: try await poster.post(request.endpoint, request.formFields))
    }
}
