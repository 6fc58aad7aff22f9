import Foundation
import Testing

@testable import PorticoKit

/// What `authorize` does first, for every strategy and stored grant.
struct StrategyTests {
    let now = Date()

    private func grant(expiresIn: TimeInterval, refresh: Bool = true, scopes: [String] = ["profile", "postal_code"])
        -> StoredGrant
    {
        StoredGrant(
            accessToken: "at", expiresAt: now.addingTimeInterval(expiresIn), refreshToken: refresh ? "rt" : nil,
            scopes: scopes)
    }

    private func decide(_ strategy: InteractiveStrategy, _ grant: StoredGrant?, _ scopes: [String] = ["profile"])
        -> AuthorizationStrategy
    {
        AuthorizationStrategy.decide(strategy, grant: grant, scopes: scopes, now: now, margin: 60)
    }

    @Test func auto() {
        #expect(decide(.auto, nil) == .interactive)
        #expect(decide(.auto, grant(expiresIn: 3600)) == .useStoredGrant)
        #expect(decide(.auto, grant(expiresIn: 30)) == .refresh)
        #expect(decide(.auto, grant(expiresIn: -10, refresh: false)) == .interactive)
        #expect(decide(.auto, grant(expiresIn: 3600), ["profile", "email"]) == .interactive)
    }

    @Test func never() {
        #expect(decide(.never, nil) == .authorizationRequired)
        #expect(decide(.never, grant(expiresIn: 3600)) == .useStoredGrant)
        #expect(decide(.never, grant(expiresIn: -10)) == .refresh)
        #expect(decide(.never, grant(expiresIn: -10, refresh: false)) == .authorizationRequired)
        #expect(decide(.never, grant(expiresIn: 3600), ["email"]) == .authorizationRequired)
    }

    @Test func always() {
        #expect(decide(.always, nil) == .interactive)
        #expect(decide(.always, grant(expiresIn: 3600)) == .interactive)
    }

    @Test func aGrantWithoutExpiryCountsAsFresh() {
        let grant = StoredGrant(accessToken: "at", expiresAt: nil, refreshToken: nil, scopes: ["profile"])
        #expect(decide(.never, grant) == .useStoredGrant)
    }
}
