import Foundation
import PorticoStore

/// What the provider offers its grants; each takes the parts it uses in its initializer.
struct TokenGrantDependencies: Sendable {
    /// The store every node shares.
    let store: any Store
    /// Describes and signs access and ID tokens.
    let tokens: TokenIssuer
    /// Lifetimes of codes and tokens.
    let lifetimes: TokenLifetimes
    /// The clock.
    let now: @Sendable () -> Date
    /// Counters for operators.
    let metrics: ProviderMetrics
}
