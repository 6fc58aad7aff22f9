import Foundation
import PorticoStore
import PorticoStorePostgres
import PorticoStoreSQLite

/// The database a ``ProviderHarness`` runs on.
///
/// A parameter rather than a fixed SQLite file so that a suite can be run against every
/// backend: SQLite always, PostgreSQL where the test has a server (``postgres(url:)``).
public enum TestDatabase: Sendable, CustomStringConvertible {
    /// A fresh SQLite file in the harness's temporary directory, removed when it stops.
    case sqlite
    /// A PostgreSQL database the test made (its URL); the harness keeps its signing keys in a
    /// key file, as `portico serve` on PostgreSQL does. Not in ``available``: suites that need
    /// the server ask for it.
    case postgres(url: String)

    /// Every database this machine can run the suites on.
    public static var available: [TestDatabase] { [.sqlite] }

    /// The `--database` URL of this database for a harness working in `directory`.
    func url(in directory: URL) -> DatabaseURL {
        switch self {
        case .sqlite: .sqlite(path: "\(directory.path)/portico.db")
        case .postgres(let url): .postgres(url)
        }
    }

    /// Opens (and migrates) the store at `url`: for a provider to serve (`longRunning`, tuned as
    /// `portico serve` tunes it) or for a test to look into.
    func open(_ url: DatabaseURL, longRunning: Bool) throws -> any Store {
        switch url {
        case .sqlite(let path): try SQLiteStore(path: path, backgroundCheckpoints: longRunning)
        case .postgres(let url): try PostgresStore(url: url, poolSize: 4)
        default: throw StoreError.unsupportedURL(url.description)
        }
    }

    /// The backend's name, as test output shows it.
    public var description: String {
        switch self {
        case .sqlite: "SQLite"
        case .postgres: "PostgreSQL"
        }
    }
}
