import PorticoStore
import PorticoStoreConformance
import PorticoStoreSQLite
import PorticoTesting
import Testing

/// The backend-neutral conformance suite (`StoreConformance`), each check on a fresh SQLite
/// file; its stores are separate, as the connections of two nodes would be.
@Suite struct SQLiteConformanceTests {
    @Test(arguments: StoreConformance.checks)
    func conforms(_ check: StoreConformance.Check) throws {
        let directory = try TemporaryDirectory()
        let path = directory.databasePath()
        try withExtendedLifetime(directory) {
            try check.run { try SQLiteStore(path: path) }
        }
    }
}
