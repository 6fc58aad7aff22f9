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

    /// The backends the harness opens, registered as `portico` registers them (once, before
    /// any URL is parsed): the test harness and the command line share ``StoreBackends``.
    public static let backendsRegistered: Void = {
        StoreBackends.register(SQLiteBackend())
        StoreBackends.register(PostgresBackend())
    }()

    /// The `--database` URL of this database for a harness working in `directory`.
    func url(in directory: URL) -> DatabaseURL {
        Self.backendsRegistered
        let text =
            switch self {
            case .sqlite: "sqlite:\(directory.path)/portico.db"
            case .postgres(let url): url
            }
        // Both forms parse: the path is a temporary folder's, the PostgreSQL URL the test's.
        guard let url = try? DatabaseURL(parsing: text) else { preconditionFailure("a test database URL: \(text)") }
        return url
    }

    /// Opens (and migrates) the store at `url`: for a provider to serve (`longRunning`, tuned as
    /// `portico serve` tunes it) or for a test to look into.
    func open(_ url: DatabaseURL, longRunning: Bool) throws -> any Store {
        try StoreBackends.open(url, options: StoreOpening(longRunning: longRunning, poolSize: 4))
    }

    /// The backend's name, as test output shows it.
    public var description: String {
        switch self {
        case .sqlite: "SQLite"
        case .postgres: "PostgreSQL"
        }
    }
}
