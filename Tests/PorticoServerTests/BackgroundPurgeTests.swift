import Foundation
import PorticoServer
import PorticoStore
import Testing

/// `serve` runs the store's purger: expired sessions disappear while live ones stay.
@Suite struct BackgroundPurgeTests {
    @Test func aRunningProviderPurgesExpiredSessions() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("portico-purge-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = "sqlite:\(directory.path)/portico.db"
        let provider = try IdentityProvider(
            configuration: ProviderConfiguration(
                port: 0, databaseURL: try DatabaseURL(parsing: database), logRequests: false,
                purgeInterval: .milliseconds(100)),
            store: try openStore(url: database, longRunning: true))
        try provider.start()
        let store = try openStore(url: database)
        defer {
            store.close()
            provider.shutdown()
        }
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
