import Foundation
import PorticoStore

/// The embedded backend's URLs: `sqlite:PATH` (`sqlite:./portico-data/portico.db`,
/// `sqlite:/var/lib/portico.db`, with an empty authority `sqlite:///var/lib/portico.db`) and
/// `sqlite::memory:` for a private in-memory database. Registered with
/// ``StoreBackends/register(_:)``.
public struct SQLiteBackend: StoreBackend {
    /// The backend.
    public init() {}

    /// `sqlite:`.
    public var schemes: [String] { ["sqlite"] }

    /// `sqlite:PATH`, or `sqlite::memory:`; a path that itself starts with `//` keeps the empty
    /// authority, or parsing it again would take its first two slashes for one (found by
    /// fuzzing).
    public func canonical(_ url: String) throws -> String {
        guard let path = Self.path(inText: url) else { throw StoreError.unsupportedURL(url) }
        if path == ":memory:" { return "sqlite::memory:" }
        return path.hasPrefix("//") ? "sqlite://\(path)" : "sqlite:\(path)"
    }

    /// The file's store (made with its folder when missing, if `options` allow), or the
    /// process's own in-memory database.
    public func open(_ url: DatabaseURL, options: StoreOpening) throws -> any Store {
        guard let path = Self.path(of: url) else { throw StoreError.unsupportedURL(url.text) }
        if path == ":memory:" { return try SQLiteStore(path: path, migrate: options.migrate) }
        if !options.creating && !FileManager.default.fileExists(atPath: path) {
            throw StoreError.databaseMissing(path)
        }
        return try SQLiteStore(path: path, migrate: options.migrate, backgroundCheckpoints: options.longRunning)
    }

    /// The file an `sqlite:` URL names (`:memory:` for the in-memory database); nil for a URL of
    /// another scheme.
    public static func path(of url: DatabaseURL) -> String? {
        url.scheme == "sqlite" ? path(inText: url.text) : nil
    }

    private static func path(inText text: String) -> String? {
        guard text.lowercased().hasPrefix("sqlite:") else { return nil }
        var path = String(text.dropFirst("sqlite:".count))
        if path.hasPrefix("//") { path.removeFirst(2) }
        guard !path.isEmpty, !path.contains("\u{0}") else { return nil }
        return path
    }
}
