import Foundation
import PorticoStore

/// What the provider offers its grants; each takes the parts it uses in its initializer.
struct TokenGrantDependencies: Sendable {
    /// The store every node shares.
    let store: any Store
    /// Describes and signs access and ID tokens.
    let tokens: TokenIssuer
    /// Reads access tokens presented to a grant (a subject token to exchange); revocation is
    /// the store's to answer.
    let accessTokens: AccessTokenVerifier
    /// Lifetimes of codes and tokens.
    let lifetimes: TokenLifetimes
    /// The clock.
    let now: @Sendable () -> Date
    /// Counters for operators.
    let metrics: ProviderMetrics
    /// The subjects pairwise clients see, over the provider's shared client cache.
    let subjects: PairwiseSubjects
}
