/// A database location as the command line and environment give it (`--database`,
/// `PORTICO_DATABASE`).
///
/// Parsing is separate from opening so that the CLI can report a bad URL before doing
/// anything else, and so that the backends can be chosen in one place.
public enum DatabaseURL: Sendable, Hashable, CustomStringConvertible {
    /// An SQLite file: `sqlite:./portico-data/portico.db`, `sqlite:/var/lib/portico.db`, or
    /// with an empty authority, `sqlite:///var/lib/portico.db`.
    case sqlite(path: String)
    /// A private in-memory SQLite database (`sqlite::memory:`), for tests and demos.
    case sqliteInMemory
    /// A PostgreSQL server (`postgres://user@host:port/db` or `postgresql://…`).
    case postgres(String)

    /// Parses a database URL; throws ``StoreError/unsupportedURL(_:)`` for anything else.
    public init(parsing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("postgres://") || trimmed.hasPrefix("postgresql://") {
            self = .postgres(trimmed)
            return
        }
        guard trimmed.hasPrefix("sqlite:") else { throw StoreError.unsupportedURL(text) }
        var path = String(trimmed.dropFirst("sqlite:".count))
        if path.hasPrefix("//") { path.removeFirst(2) }
        if path == ":memory:" {
            self = .sqliteInMemory
            return
        }
        guard !path.isEmpty, !path.contains("\u{0}") else { throw StoreError.unsupportedURL(text) }
        self = .sqlite(path: path)
    }

    /// The URL as it would be written.
    public var description: String {
        switch self {
        // A path that itself starts with `//` needs the empty authority, or parsing the
        // description would take its first two slashes for one (found by fuzzing).
        case .sqlite(let path): path.hasPrefix("//") ? "sqlite://\(path)" : "sqlite:\(path)"
        case .sqliteInMemory: "sqlite::memory:"
        case .postgres(let url): url
        }
    }
}
