import Foundation
import PorticoStore
import PorticoStoreConformance
import PorticoStoreSQLite
import PorticoTesting

/// A fresh directory under the system's temporary directory, removed when released.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "portico-store-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// A database path inside the directory (in a subdirectory, to exercise its creation).
    func databasePath(_ name: String = "portico.db") -> String {
        url.appendingPathComponent("data/\(name)").path
    }
}

/// Runs `body` with a new store on a real file in a temporary directory, then closes it and
/// removes the directory.
func withStore<T>(
    strategy: SQLiteConnectionStrategy = .standard, _ body: (SQLiteStore) throws -> T
) throws -> T {
    let directory = try TemporaryDirectory()
    let store = try SQLiteStore(path: directory.databasePath(), strategy: strategy)
    defer { store.close() }
    return try body(store)
}

/// A fixed instant (whole seconds, as the store keeps times), far from the test's real clock.
let referenceTime = StoreFixtures.referenceTime

/// Opens the store of a `sqlite:` URL as `portico` does (the command picks the backend).
func openStore(url: String) throws -> any Store {
    StoreBackends.register(SQLiteBackend())
    return try StoreBackends.open(url)
}
