import Foundation
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

/// `serve` runs the store's purger: expired sessions disappear while live ones stay.
@Suite struct BackgroundPurgeTests {
    @Test func aRunningProviderPurgesExpiredSessions() async throws {
        try await ProviderHarness.with(configuration: .testing { $0.purgeInterval = .milliseconds(100) }) { harness in
            let store = harness.store
            let user = UserRecord(email: "purge@example.com", name: "Purge", passwordHash: "unused")
            try store.transaction { try $0.insert(user) }
            let now = Date()
            try store.transaction { transaction in
                try transaction.insert(
                    BrowserSession(token: "expired-session", userID: user.id, expiresAt: now.addingTimeInterval(-60)))
                try transaction.insert(
                    BrowserSession(token: "live-session", userID: user.id, expiresAt: now.addingTimeInterval(3600)))
            }
            func storedSessions() throws -> Int { try store.read { try $0.sessions(userID: user.id).count } }
            #expect(try storedSessions() == 2)
            let deadline = ContinuousClock.now.advanced(by: .seconds(20))
            while try storedSessions() > 1, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(try storedSessions() == 1)
            #expect(try store.read { try $0.session(token: "live-session", now: Date()) } != nil)
        }
    }
}
