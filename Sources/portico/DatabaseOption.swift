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
    static func open(_ url: String, migrate: Bool = true) throws -> any Store {
        do {
            return try openStore(url: url, migrate: migrate)
        } catch {
            throw CommandLineError.failure("cannot open the database \(url): \(error)")
        }
    }
}
