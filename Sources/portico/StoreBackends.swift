import PorticoStore
import PorticoStorePostgres
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
///   - poolSize: the most connections a PostgreSQL store opens (`--database-pool`); SQLite
///     ignores it (one writer, a reader per thread).
/// - Throws: ``StoreError/unsupportedURL(_:)`` for an unknown form, and whatever opening the
///   database throws (for PostgreSQL one line naming the server without its password).
func openStore(url: String, migrate: Bool = true, longRunning: Bool = false, poolSize: Int = 1) throws -> any Store {
    try openStore(url: DatabaseURL(parsing: url), migrate: migrate, longRunning: longRunning, poolSize: poolSize)
}

/// Opens the store of a parsed URL; see ``openStore(url:migrate:longRunning:poolSize:)-(String,_,_,_)``.
func openStore(url: DatabaseURL, migrate: Bool = true, longRunning: Bool = false, poolSize: Int = 1) throws
    -> any Store
{
    switch url {
    case .sqlite(let path):
        return try SQLiteStore(path: path, migrate: migrate, backgroundCheckpoints: longRunning)
    case .sqliteInMemory:
        return try SQLiteStore(path: ":memory:", migrate: migrate)
    case .postgres(let url):
        return try PostgresStore(url: url, poolSize: poolSize, migrate: migrate)
    }
}
