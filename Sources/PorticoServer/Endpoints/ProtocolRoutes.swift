import PorticoHTTP

/// The protocol endpoints: discovery, JWKS, token, userinfo, profile, revocation, introspection.
enum ProtocolRoutes {
    static func register(on router: Router, context: ProviderContext) {
        HealthEndpoint.register(on: router)
    }
}
