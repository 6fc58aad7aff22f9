import Foundation
import PorticoHTTP
import PorticoStore

/// The companion's endpoints (DESIGN, "The companion"), composed in one place.
enum CompanionRoutes {
    /// What the companion's endpoints use of the provider, and nothing more: they answer with
    /// codes and tickets, so they need the store, the keys that seal a pending request, the
    /// code lifetime, the issuer, the clock and the bearer-token gate, never the pages' parts.
    struct Parts: Sendable {
        /// The store every node shares.
        let store: any Store
        /// Seals the request a ticket carries (``PendingRequestSeal``).
        let keys: KeyRing
        /// The lifetime of the codes handed to apps.
        let lifetimes: TokenLifetimes
        /// The clock.
        let now: @Sendable () -> Date
        /// The issuer, named in every answer (`iss`).
        let issuerIdentifier: IssuerIdentifier
        /// Whether a route that touches the store runs on an epoll thread or the worker pool.
        let execution: RouteExecution
        /// The bearer-token gate shared with the resource endpoints.
        let resource: ProtectedResource
        /// Where the companion counters are registered.
        let registry: MetricsRegistry
        /// Verifies signed request objects, for ``AuthorizationRequestSource`` (pushed requests).
        let requestObjects: RequestObjectVerifier
        /// Whether every app must push its requests (`serve --require-par`), here as at
        /// `/oauth/authorize`.
        let requiresPAR: Bool

        /// The issuer identifier (`iss`), without a trailing slash.
        var issuer: String { issuerIdentifier.current }
    }

    /// Registers `POST /oauth/companion/authorize` and `POST /oauth/companion/consent`.
    static func register(on router: Router, parts: Parts) {
        let metrics = CompanionMetrics(registry: parts.registry)
        CompanionAuthorizationEndpoint(parts: parts, metrics: metrics).register(on: router)
        CompanionConsentEndpoint(parts: parts, metrics: metrics).register(on: router)
    }
}
