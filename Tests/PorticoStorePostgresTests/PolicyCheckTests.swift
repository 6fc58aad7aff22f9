import PorticoStore
import PorticoStoreConformance
import PorticoStorePostgres
import PorticoTesting
import Testing

/// The provider's policies (`PolicyChecks`: refresh rotation and its grace, device polls,
/// consent union) on PostgreSQL, each check on a fresh database of the test server; every store a
/// check opens has connections of its own, as two nodes would. They ran here as part of the store
/// conformance suite until that suite stopped needing the server.
@Suite(TestServer.required) struct PostgresPolicyCheckTests {
    @Test(arguments: PolicyChecks.checks)
    func holds(_ check: StoreConformance.Check) throws {
        let database = try TemporaryDatabase()
        let url = database.url
        try withExtendedLifetime(database) {
            try check.run { try PostgresStore(url: url, poolSize: 2) }
        }
    }
}
