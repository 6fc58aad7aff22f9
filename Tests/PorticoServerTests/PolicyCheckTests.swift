import Foundation
import PorticoStore
import PorticoStoreConformance
import PorticoStoreSQLite
import PorticoTesting
import Testing

/// The provider's policies (refresh rotation and its grace, device polls, consent union) on
/// SQLite, each check on a fresh file whose stores are separate, as two nodes' connections
/// would be (`PolicyChecks`; PorticoStorePostgresTests runs the same on PostgreSQL).
@Suite struct PolicyCheckTests {
    @Test(arguments: PolicyChecks.checks)
    func holds(_ check: StoreConformance.Check) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "portico-policy-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("data/portico.db").path
        try check.run { try SQLiteStore(path: path) }
    }
}
