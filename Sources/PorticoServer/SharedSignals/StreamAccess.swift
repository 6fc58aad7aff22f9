import PorticoHTTP
import PorticoStore

/// The gate in front of the stream management and poll endpoints: a bearer access token
/// (RFC 6750) from the client-credentials grant of a client registered with `--ssf`, granting
/// ``SharedSignals/manageScope``, unrevoked. The client it was issued to is the receiver, and
/// only its own stream is ever reached through it.
struct StreamAccess: Sendable {
    /// Where revocations are read.
    let store: any Store
    /// The shared, caching verifier of Portico's access tokens.
    let verifier: AccessTokenVerifier
    /// The provider's issuer: the tokens' `aud`.
    let issuer: IssuerIdentifier
    /// Clients, cached.
    let clients: ClientCache

    /// The receiver `request` speaks for, or the RFC 6750 error to answer.
    func receiver(of request: Request) throws -> Client {
        let token = try ProtectedResource.bearerToken(in: request, formParameter: false)
        let verified = try verifier.verify(token)
        guard verified.audience.contains(issuer.current) else {
            throw OAuthError.invalidToken("The access token is meant for another resource server.")
        }
        guard !verified.hasUser, verified.subject == verified.clientID,
            verified.scopes.contains(SharedSignals.manageScope)
        else {
            throw OAuthError.insufficientScope(
                "Stream management needs a client-credentials token of scope \(SharedSignals.manageScope).",
                required: SharedSignals.manageScope)
        }
        guard let client = try clients.client(id: verified.clientID),
            client.allowedScopes.contains(SharedSignals.manageScope)
        else { throw OAuthError.invalidToken("The client of the access token is not a Shared Signals receiver.") }
        guard try !store.read({ try verifier.isRevoked(verified, in: $0) }) else {
            throw OAuthError.invalidToken("The access token has been revoked.")
        }
        return client
    }
}
