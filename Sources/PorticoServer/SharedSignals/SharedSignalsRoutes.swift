import Foundation
import PorticoHTTP
import PorticoStore

/// Composes the Shared Signals transmitter: the configuration document, stream management,
/// poll delivery, and the outbox handler of push delivery.
enum SharedSignalsRoutes {
    /// Registers the endpoints on `router` and returns the push handler for the outbox.
    static func register(
        on router: Router, context: ProviderContext, settings: BackChannelLogoutSettings,
        addresses: OutboundAddressPolicy, onError: @escaping @Sendable (String) -> Void
    ) -> any OutboxTopicHandler {
        let subjects = PairwiseSubjects(store: context.store, clients: context.clients)
        let verifier = AccessTokenVerifier(keys: context.keys, issuer: context.issuerIdentifier, now: context.now)
        let access = StreamAccess(
            store: context.store, verifier: verifier, issuer: context.issuerIdentifier, clients: context.clients)
        let signer = SecurityEventSigner(keys: context.keys, issuer: context.issuerIdentifier, subjects: subjects)
        let metrics = SharedSignalsMetrics(registry: context.metrics.registry)
        SSFConfigurationEndpoint(issuer: context.issuerIdentifier).register(on: router)
        StreamManagementEndpoint(
            access: access, store: context.store, issuer: context.issuerIdentifier, addresses: addresses,
            subjects: subjects, now: context.now
        ).register(on: router, execution: context.execution)
        SignalPollEndpoint(access: access, store: context.store, signer: signer, metrics: metrics, onError: onError)
            .register(on: router)
        return SignalPushDeliverer(
            store: context.store, signer: signer, settings: settings, addresses: addresses, metrics: metrics,
            onError: onError)
    }
}
