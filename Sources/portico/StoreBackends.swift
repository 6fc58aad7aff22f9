import PorticoStore
import PorticoStoreSQLite

/// Opens the store a database URL names: the one place that picks a backend, so that
/// `PorticoServer` knows only the storage contract.
///
/// - Parameters:
///   - url: `sqlite:PATH`, `sqlite::memory:` or `postgres://…` (see ``DatabaseURL``).
///   - migrate: whether to apply missing migrations on opening (false for `portico migrate`,
///     which calls ``Store/migrate()`` itself to report the versions).
///   - longRunning: whether the store serves a long-running process (`portico serve`), which
///     then tunes it for that: SQLite checkpoints run on a background thread.
/// - Throws: ``StoreError/unsupportedURL(_:)`` for an unknown form,
///   ``StoreError/backendUnavailable(_:)`` for PostgreSQL (not in this build yet), and whatever
///   opening the database throws.
func openStore(url: String, migrate: Bool = true, longRunning: Bool = false) throws -> any Store {
    try openStore(url: DatabaseURL(parsing: url), migrate: migrate, longRunning: longRunning)
}

/// Opens the store of a parsed URL; see ``openStore(url:migrate:longRunning:)-(String,_,_)``.
func openStore(url: DatabaseURL, migrate: Bool = true, longRunning: Bool = false) throws -> any Store {
    switch url {
    case .sqlite(let path):
        return try SQLiteStore(path: path, migrate: migrate, backgroundCheckpoints: longRunning)
    case .sqliteInMemory:
        return try SQLiteStore(path: ":memory:", migrate: migrate)
    case .postgres:
        throw StoreError.backendUnavailable("PostgreSQL backend not available yet; use sqlite:PATH")
    }
}
