import Foundation
import PorticoStore

/// The `--database` option every command shares, and opening the store with a clear error.
enum DatabaseOption {
    /// The default of the DESIGN; the one place it is spelled (the help texts print it).
    static let defaultURL = "sqlite:./portico-data/portico.db"

    /// `--database`, then `PORTICO_DATABASE`, then the default.
    static func url(_ arguments: inout Arguments, environment: [String: String]) throws -> String {
        try arguments.value("database") ?? environment["PORTICO_DATABASE"] ?? defaultURL
    }

    /// Opens the store with the backend its URL names (``StoreBackends``), turning any failure
    /// into one line that names the database.
    ///
    /// - Parameter creating: whether a missing SQLite file may be made (only `portico migrate`
    ///   and `serve` make a database). Why: an admin command with a mistyped `--database` path
    ///   would otherwise make a new empty database and report "no clients yet" with exit 0.
    static func open(
        _ url: String, migrate: Bool = true, creating: Bool = false, longRunning: Bool = false, poolSize: Int = 1
    ) throws -> any Store {
        let options = StoreOpening(migrate: migrate, creating: creating, longRunning: longRunning, poolSize: poolSize)
        do {
            return try StoreBackends.open(url, options: options)
        } catch StoreError.databaseMissing(let path) {
            throw CommandLineError.failure(
                "no database at \(path): check --database (or PORTICO_DATABASE); "
                    + "'portico serve' or 'portico migrate --database \(url)' makes a new one")
        } catch {
            throw CommandLineError.failure("cannot open the database \(displayed(url)): \(error)")
        }
    }

    /// `--database-pool N`: the most PostgreSQL connections `serve` opens; nil when not given.
    static func poolSize(_ arguments: inout Arguments) throws -> Int? {
        guard let text = try arguments.value("database-pool") else { return nil }
        guard let size = Int(text), (1...1000).contains(size) else {
            throw CommandLineError.usage("database-pool must be a number from 1 to 1000, not '\(text)'")
        }
        return size
    }

    /// The URL as messages may print it: its backend hides what is secret in it (a PostgreSQL
    /// URL's password becomes `***`).
    static func displayed(_ url: String) -> String {
        guard let parsed = try? DatabaseURL(parsing: url) else { return url }
        return parsed.backend.displayed(parsed)
    }
}
