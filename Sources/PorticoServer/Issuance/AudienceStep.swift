import PorticoStore

/// The audience a token request's `resource` names (RFC 8707): the access token is meant for
/// that resource server alone.
///
/// The resource must be registered for the client (``ResourceIndicators``); a grant whose
/// authorization was already bound to one resource (a code asked for with `resource`, and its
/// refresh family) can only be redeemed for that one. Either refusal is `invalid_target`, and
/// rolls the grant back: the code stays redeemable, the refresh token current.
struct AudienceStep: IssuanceStep {
    func mayRefuse(_ request: TokenRequest) -> Bool {
        request.parameters["resource"] != nil
    }

    func applies(to issuance: TokenIssuance, for request: TokenRequest) -> Bool {
        request.parameters["resource"] != nil
    }

    func shape(_ issuance: inout TokenIssuance, for request: TokenRequest, in transaction: any StoreTransaction)
        throws
    {
        guard let requested = request.parameters["resource"] else { return }
        let resource = try ResourceIndicators.check(requested, for: request.client.client, in: transaction)
        if let bound = issuance.accessToken.audience, bound != [resource] {
            throw OAuthError.invalidTarget("The authorization was for another resource.")
        }
        issuance.accessToken.audience = [resource]
    }
}
