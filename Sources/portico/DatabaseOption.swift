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

    /// Opens the store, turning any failure into one line that names the database.
    ///
    /// - Parameter creating: whether a missing SQLite file may be made (only `portico migrate`
    ///   and `serve` make a database). Why: an admin command with a mistyped `--database` path
    ///   would otherwise make a new empty database and report "no clients yet" with exit 0.
    static func open(_ url: String, migrate: Bool = true, creating: Bool = false) throws -> any Store {
        if !creating, case .sqlite(let path)? = try? DatabaseURL(parsing: url),
            !FileManager.default.fileExists(atPath: path)
        {
            throw CommandLineError.failure(
                "no database at \(path): check --database (or PORTICO_DATABASE); "
                    + "'portico serve' or 'portico migrate --database \(url)' makes a new one")
        }
        do {
            return try openStore(url: url, migrate: migrate)
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

    /// The URL as messages may print it: a PostgreSQL URL's password (`user:secret@`) is
    /// replaced by `***`.
    static func displayed(_ url: String) -> String {
        guard url.hasPrefix("postgres://") || url.hasPrefix("postgresql://"),
            let scheme = url.range(of: "://")
        else { return url }
        let rest = url[scheme.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@"),
            let colon = rest[..<at].firstIndex(of: ":")
        else { return url }
        return String(url[..<rest.index(after: colon)]) + "***" + String(rest[at...])
    }
}
