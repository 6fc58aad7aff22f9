import PorticoHTTP
import PorticoStore

/// `POST /oauth/token`: exchanges a grant for tokens (RFC 6749 §3.2, OAuth 2.1 §3.2).
///
/// The endpoint itself only reads the form, authenticates the client, picks the grant from
/// ``TokenGrantRegistry`` and signs what the grant decided and committed; each grant type lives
/// in a file of its own, and what every grant's tokens get (audience, pairwise subject,
/// companion session) is the ``IssuancePipeline`` the grants run before they commit. A new
/// feature of issued tokens is a new ``IssuanceStep``: this file does not change. A `grant_type` no grant answers is `unsupported_grant_type`; a client not registered
/// for the grant it names is `unauthorized_client`. Where it runs is ``RouteExecution``'s
/// choice (the epoll threads with SQLite: token signing is CPU work, SQLite transactions short).
struct TokenEndpoint: Sendable {
    /// The token endpoint's path (also an accepted `aud` of client assertions).
    static let path = "/oauth/token"
    /// Login with Amazon's token path, answered here too so LWA apps can switch by base URL.
    static let amazonPath = "/auth/o2/token"

    /// Every grant by each `grant_type` value it answers.
    private let grants: [String: any TokenGrant]
    /// Client authentication, as at every back-channel endpoint.
    private let authenticator: ClientAuthenticator
    /// Signs what the grants decide.
    private let tokens: TokenIssuer
    /// Counts issued tokens and errors.
    private let metrics: ProviderMetrics
    /// Checks DPoP proofs (RFC 9449); what a proof binds is ``SenderConstraintStep``'s.
    private let proofs: DPoPProofChecker

    /// A token endpoint for `grants`.
    init(
        grants: [any TokenGrant], authenticator: ClientAuthenticator, tokens: TokenIssuer, metrics: ProviderMetrics,
        proofs: DPoPProofChecker
    ) {
        var byType: [String: any TokenGrant] = [:]
        for grant in grants {
            let kind = type(of: grant)
            for name in [kind.grantType] + kind.dialects { byType[name] = grant }
        }
        self.grants = byType
        self.authenticator = authenticator
        self.tokens = tokens
        self.metrics = metrics
        self.proofs = proofs
    }

    /// Registers the route.
    func register(on router: Router, execution: RouteExecution) {
        for path in [Self.path, Self.amazonPath] {
            execution.postAuthenticatingClients(
                path, on: router, immediate: { request in answerFromMemory(request) },
                { request in handle(request) })
        }
    }

    /// Answers one token request; never throws, every failure is an RFC 6749 §5.2 error.
    func handle(_ request: Request) -> Response {
        handle(request, authenticator: authenticator) ?? OAuthError.serverError().response()
    }

    /// The answer to a request whose grant needs no store (client credentials) from a client in
    /// memory, without waiting on anything: with a remote store this runs on the epoll thread
    /// first. Nil hands the request to ``handle(_:)`` on the worker pool: another grant, a
    /// `resource` to check, an assertion, or a client not in the cache.
    func answerFromMemory(_ request: Request) -> Response? {
        guard let parameters = try? OAuthParameters(formOf: request), let grantType = parameters["grant_type"],
            let grant = grants[grantType], type(of: grant).answersFromMemory, parameters["resource"] == nil,
            !request.headers.contains("DPoP")
        else { return nil }
        return handle(request, authenticator: authenticator.fromMemory)
    }

    /// The answer, or nil when a memory-only `authenticator` would need the store.
    private func handle(_ request: Request, authenticator: ClientAuthenticator) -> Response? {
        var needsStore = false
        let response = OAuthEndpoint.respond {
            do {
                let (response, grant) = try exchange(request, authenticator: authenticator)
                metrics.recordTokenIssued(label: type(of: grant).metricsLabel)
                return response
            } catch is ClientAuthenticator.NotInMemory {
                // Not a failure: the request goes on to the worker pool, and this answer is dropped.
                needsStore = true
                return OAuthError.serverError().response()
            } catch {
                metrics.recordTokenError(error)
                throw error
            }
        }
        return needsStore ? nil : response
    }

    /// Authenticates the client and runs its grant; returns the response and the grant.
    private func exchange(_ request: Request, authenticator: ClientAuthenticator) throws -> (Response, any TokenGrant) {
        let parameters = try OAuthParameters(formOf: request)
        let grantType = try parameters.required("grant_type")
        let grant = grants[grantType]
        // The client is established first, so an unknown client learns nothing about grants.
        var client: AuthenticatedClient?
        if request.headers["Authorization"] == nil && parameters["client_id"] == nil {
            client = try grant?.client(namedBy: parameters, grantType: grantType)
        }
        let authenticated = try client ?? authenticator.authenticate(request, parameters: parameters)
        guard let grant else { throw OAuthError.unsupportedGrantType("The grant type is not supported.") }
        let kind = type(of: grant)
        guard authenticated.client.allowedGrantTypes.contains(kind.grantType) else {
            throw OAuthError.unauthorizedClient("This client may not use the \(kind.grantType) grant.")
        }
        // By how it authenticated: a secret proves a confidential client.
        let clientType: ClientType = authenticated.isConfidential ? .confidential : .public
        guard kind.clientTypes.contains(clientType) else {
            throw OAuthError.unauthorizedClient(
                "Only \(clientType == .public ? "confidential" : "public") clients may use the \(kind.grantType) grant."
            )
        }
        let proof: DPoPProof?
        do {
            proof = try proofs.proof(of: request, path: request.path)
        } catch {
            throw OAuthError.tokenEndpoint(error, nonce: proofs.currentNonce())
        }
        try authenticated.client.checkProfileAllows(proof)
        // A client registered with --dpop gets bound tokens only: without a proof, nothing is decided.
        if proof == nil && authenticated.client.requiresDPoP {
            throw OAuthError.invalidDPoPProof("This client's tokens are bound to a key: send a DPoP proof.")
        }
        // The grant decided and committed, its issuance steps included; what is left is signing.
        let issuance = try grant.exchange(
            TokenRequest(parameters: parameters, client: authenticated, grantType: grantType, proof: proof))
        var response = try tokens.response(for: issuance).response()
        if proof != nil { proofs.supplyNonce(in: &response) }
        return (response, grant)
    }
}
