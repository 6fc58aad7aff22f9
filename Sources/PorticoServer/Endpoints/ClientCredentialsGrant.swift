import PorticoStore

/// `grant_type=client_credentials` (OAuth 2.1 §4.2): a confidential client gets an access token
/// for itself, to call resource servers with the platform's product scopes.
///
/// No person is involved, so the user scopes (`openid`, `profile`, …) are refused, `sub` is the
/// client id, and there is neither a refresh token (the client can always ask again) nor an ID
/// token. Nothing is written to the store (but what an ``IssuanceStep`` writes, which opens a
/// transaction only when one applies: a `resource`).
struct ClientCredentialsGrant: TokenGrant {
    static let grantType = "client_credentials"
    /// It has no secret to authenticate with otherwise.
    static let clientTypes: Set<ClientType> = [.confidential]
    /// Nothing is read or written but the client, which the cache usually holds.
    static let answersFromMemory = true

    /// Describes the token to sign.
    let tokens: TokenIssuer
    /// What the token gets.
    let pipeline: IssuancePipeline

    init(_ dependencies: TokenGrantDependencies) {
        tokens = dependencies.tokens
        pipeline = dependencies.pipeline
    }

    /// Issues an access token to the client for the `scope` of the request, or for all of its
    /// allowed product scopes when none is asked for.
    func exchange(_ request: TokenRequest) throws -> TokenIssuance {
        let parameters = request.parameters
        let client = request.client
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
        let grant = tokens.accessTokenGrant(
            subject: client.client.id, clientID: client.client.id, scopes: scopes, authTime: nil)
        var issuance = TokenIssuance(accessToken: grant, identity: nil, refreshToken: nil)
        try pipeline.shape(&issuance, for: request)
        return issuance
    }
}
