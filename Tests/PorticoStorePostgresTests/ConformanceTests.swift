import PorticoStore
import PorticoStoreConformance
import PorticoStorePostgres
import PorticoTesting
import Testing

/// The backend-neutral conformance suite (`StoreConformance`), each check on a fresh database of
/// the test server; every store a check opens has connections of its own, as two nodes would.
@Suite(TestServer.required) struct PostgresConformanceTests {
    @Test(arguments: StoreConformance.checks)
    func conforms(_ check: StoreConformance.Check) throws {
        let database = try TemporaryDatabase()
        let url = database.url
        try withExtendedLifetime(database) {
            try check.run { try PostgresStore(url: url, poolSize: 2) }
        }
    }
}
