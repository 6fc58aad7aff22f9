import PorticoStore
import PorticoStoreSQLite
import PorticoTesting

/// Opens the SQLite file of a `sqlite:` URL as `portico` would: for a provider to serve
/// (`longRunning`, checkpoints on a thread of their own, as `portico serve` does) or for a test
/// to look into.
func openStore(url: String, longRunning: Bool = false) throws -> any Store {
    TestDatabase.backendsRegistered
    let parsed = try DatabaseURL(parsing: url)
    guard parsed.scheme == "sqlite" else { throw StoreError.unsupportedURL(url) }
    return try StoreBackends.open(parsed, options: StoreOpening(longRunning: longRunning))
}
