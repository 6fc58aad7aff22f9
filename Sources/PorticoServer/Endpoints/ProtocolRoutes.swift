import PorticoHTTP

/// The protocol endpoints: discovery, JWKS, token, device authorization, userinfo, profile,
/// revocation, introspection.
enum ProtocolRoutes {
    /// Registers every protocol endpoint of `context` on `router`.
    static func register(on router: Router, context: ProviderContext) {
        HealthEndpoint.register(on: router)
        DiscoveryEndpoint(context: context).register(on: router)
        JWKSEndpoint.register(on: router, context: context)
        TokenEndpoint(context: context).register(on: router)
        DeviceAuthorizationEndpoint(context: context).register(on: router)
        let verifier = AccessTokenVerifier(context: context)
        let resource = ProtectedResource(context: context, verifier: verifier)
        UserInfoEndpoint(resource: resource).register(on: router)
        ProfileEndpoint(resource: resource).register(on: router)
        RevocationEndpoint(context: context, verifier: verifier).register(on: router)
        IntrospectionEndpoint(context: context, verifier: verifier).register(on: router)
    }
}
