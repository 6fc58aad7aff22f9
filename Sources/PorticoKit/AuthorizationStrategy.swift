import Foundation

/// What an `authorize` call does first, decided from the strategy and the stored grant alone.
enum AuthorizationStrategy: Sendable, Equatable {
    /// The stored grant covers the scopes and its access token is fresh.
    case useStoredGrant
    /// The stored grant covers the scopes but its access token is stale: refresh silently.
    case refresh
    /// Show the provider's pages.
    case interactive
    /// `.never` and nothing usable: fail without any page.
    case authorizationRequired

    /// The decision for `strategy` with `grant` stored, for `scopes`, at `now`.
    static func decide(
        _ strategy: InteractiveStrategy, grant: StoredGrant?, scopes: [String], now: Date, margin: TimeInterval
    ) -> AuthorizationStrategy {
        if strategy == .always { return .interactive }
        let fallback: AuthorizationStrategy = strategy == .never ? .authorizationRequired : .interactive
        guard let grant, grant.covers(scopes) else { return fallback }
        if grant.hasFreshAccessToken(at: now, margin: margin) { return .useStoredGrant }
        return grant.refreshToken == nil ? fallback : .refresh
    }
}
