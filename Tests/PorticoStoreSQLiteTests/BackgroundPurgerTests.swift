import Foundation
import PorticoStore
import PorticoStoreConformance
import PorticoStoreSQLite
import PorticoTesting
import Testing

@Suite struct BackgroundPurgerTests {
    @Test func backgroundPurgerPurgesUntilStopped() async throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStore(path: directory.databasePath())
        defer { store.close() }
        let (user, _) = try StoreFixtures.userAndClient(in: store)
        // Expired by the real clock, which the purger uses.
        try store.insert(
            BrowserSession(token: "stale", userID: user.id, expiresAt: Date(timeIntervalSince1970: 1_000_000_000)))

        let reports = LockedList<PurgeReport>()
        let purger = BackgroundPurger(store: store, interval: .milliseconds(20)) { reports.append($0) }
        // Bounded wait for the first purge; no timing is asserted.
        for _ in 0..<500 where reports.all.isEmpty {
            try await Task.sleep(for: .milliseconds(10))
        }
        await purger.stopAndWait()
        #expect(reports.all.first?.sessions == 1)
        #expect(try store.sessions(userID: user.id).isEmpty)
    }
}
