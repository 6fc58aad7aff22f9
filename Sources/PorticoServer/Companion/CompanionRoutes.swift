import PorticoHTTP

/// The companion's endpoints (DESIGN, "The companion"), composed in one place.
enum CompanionRoutes {
    /// Registers `POST /oauth/companion/authorize` and `POST /oauth/companion/consent`.
    static func register(on router: Router, context: ProviderContext, resource: ProtectedResource) {
        let metrics = CompanionMetrics(registry: context.metrics.registry)
        CompanionAuthorizationEndpoint(context: context, resource: resource, metrics: metrics).register(on: router)
        CompanionConsentEndpoint(context: context, resource: resource, metrics: metrics).register(on: router)
    }
}
