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
    /// Registered clients as the token endpoint authenticates them (read again at most every few
    /// seconds), so that a grant sees the same registration its caller was admitted with.
    let clients: ClientCache
    /// ID tokens already verified, by their exact text (the Native SSO exchange's).
    let verifiedIDTokens: VerifiedIDTokens
    /// What every grant's tokens go through before the grant commits.
    let pipeline: IssuancePipeline
}
