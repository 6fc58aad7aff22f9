import PorticoStore
import PorticoStoreSQLite

/// Opens the SQLite file of a `sqlite:` URL as `portico` would: for a provider to serve
/// (`longRunning`, checkpoints on a thread of their own, as `portico serve` does) or for a test
/// to look into.
func openStore(url: String, longRunning: Bool = false) throws -> any Store {
    guard case .sqlite(let path) = try DatabaseURL(parsing: url) else { throw StoreError.unsupportedURL(url) }
    return try SQLiteStore(path: path, backgroundCheckpoints: longRunning)
}
