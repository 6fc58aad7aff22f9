/// `grant_type=client_credentials` (OAuth 2.1 §4.2): a confidential client gets an access token
/// for itself, to call resource servers with the platform's product scopes.
///
/// No person is involved, so the user scopes (`openid`, `profile`, …) are refused, `sub` is the
/// client id, and there is neither a refresh token (the client can always ask again) nor an ID
/// token. Nothing is written to the store.
struct ClientCredentialsGrant {
    /// The provider.
    let context: ProviderContext

    /// Issues an access token to `client` for the `scope` of `parameters`, or for all of its
    /// allowed product scopes when none is asked for.
    func exchange(_ parameters: OAuthParameters, for client: AuthenticatedClient) throws -> TokenResponse {
        guard client.isConfidential else {
            throw OAuthError.unauthorizedClient("Only confidential clients may use client credentials.")
        }
        let allowed = client.client.allowedScopes.filter { !ScopeCatalog.builtInNames.contains($0) }
        var scopes = allowed
        if let requested = parameters["scope"] {
            scopes = ScopeCatalog.parse(requested)
            if let userScope = scopes.first(where: ScopeCatalog.builtInNames.contains) {
                throw OAuthError.invalidScope(
                    "The scope \(userScope) needs a person; client credentials cannot have it.")
            }
            guard scopes.allSatisfy(allowed.contains) else {
                throw OAuthError.invalidScope("The client may not ask for this scope.")
            }
        }
        let issuer = TokenIssuer(context: context)
        let grant = issuer.accessTokenGrant(
            subject: client.client.id, clientID: client.client.id, scopes: scopes, authTime: nil)
        return TokenResponse(
            accessToken: try issuer.accessToken(for: grant), expiresIn: Int(context.lifetimes.accessToken),
            scopes: scopes, refreshToken: nil, idToken: nil)
    }
}
