import PorticoHTTP

/// The protocol endpoints: discovery, JWKS, token, pushed authorization requests, device
/// authorization, userinfo, profile, revocation, introspection.
///
/// This is where they are composed: each endpoint and grant is handed the few parts of the
/// provider it uses, never the whole ``ProviderContext``, and ``RouteExecution`` places every
/// route that touches the store.
enum ProtocolRoutes {
    /// Registers every protocol endpoint of `context` on `router`.
    static func register(on router: Router, context: ProviderContext) {
        let execution = context.execution
        let tokens = context.tokenIssuer
        let authenticator = context.clientAuthenticator
        HealthEndpoint.register(on: router, store: context.store)
        DiscoveryEndpoint(store: context.store, issuer: context.issuerIdentifier, requiresPAR: context.requiresPAR)
            .register(on: router)
        JWKSEndpoint.register(on: router, keys: context.keys)
        let verifier = AccessTokenVerifier(keys: context.keys, issuer: context.issuerIdentifier, now: context.now)
        let subjects = PairwiseSubjects(store: context.store, clients: context.clients)
        let grants = TokenGrantRegistry.instances(
            with: TokenGrantDependencies(
                store: context.store, tokens: tokens, accessTokens: verifier, lifetimes: context.lifetimes,
                now: context.now, metrics: context.metrics, subjects: subjects, clients: context.clients,
                verifiedIDTokens: context.verifiedIDTokens,
                pipeline: .standard(store: context.store, subjects: subjects, now: context.now)))
        let proofs = context.dpopProofChecker
        TokenEndpoint(
            grants: grants, authenticator: authenticator, tokens: tokens, metrics: context.metrics, proofs: proofs
        ).register(on: router, execution: execution)
        PushedAuthorizationEndpoint(
            store: context.store, authenticator: authenticator, requestObjects: context.requestObjectVerifier,
            proofs: proofs, now: context.now
        ).register(on: router, execution: execution)
        DeviceAuthorizationEndpoint(
            store: context.store, authenticator: authenticator, lifetimes: context.lifetimes, now: context.now,
            issuer: context.issuerIdentifier
        ).register(on: router, execution: execution)
        let resource = ProtectedResource(
            store: context.store, verifier: verifier, subjects: subjects, issuer: context.issuerIdentifier,
            standings: StandingCache.following(context.store, registry: context.metrics.registry), proofs: proofs)
        UserInfoEndpoint(resource: resource).register(on: router, execution: execution)
        CompanionRoutes.register(
            on: router,
            parts: CompanionRoutes.Parts(
                store: context.store, keys: context.keys, lifetimes: context.lifetimes, now: context.now,
                issuerIdentifier: context.issuerIdentifier, execution: execution, resource: resource,
                registry: context.metrics.registry, requestObjects: context.requestObjectVerifier,
                requiresPAR: context.requiresPAR))
        ProfileEndpoint(resource: resource).register(on: router, execution: execution)
        RevocationEndpoint(store: context.store, authenticator: authenticator, verifier: verifier, now: context.now)
            .register(on: router, execution: execution)
        IntrospectionEndpoint(
            store: context.store, authenticator: authenticator, verifier: verifier, issuer: context.issuerIdentifier,
            now: context.now, subjects: subjects
        ).register(on: router, execution: execution)
        RegistrationEndpoint(
            store: context.store, issuer: context.issuerIdentifier, isOpen: context.allowsOpenRegistration,
            allowsLoopbackCallbacks: context.allowsLoopbackCallbacks, clients: context.clients, now: context.now
        ).register(on: router, execution: execution)
        AccountLinkRoutes.register(
            on: router,
            parts: AccountLinkRoutes.Parts(
                store: context.store, authenticator: authenticator, verifier: verifier, subjects: subjects,
                lifetimes: context.lifetimes, now: context.now, issuerIdentifier: context.issuerIdentifier,
                execution: execution))
    }
}
