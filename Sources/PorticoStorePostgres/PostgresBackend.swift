import PorticoStore

/// The multi-node backend's URLs: `postgres://user@host:port/db` or `postgresql://…`, as libpq
/// reads them (its query parameters included). Registered with ``StoreBackends/register(_:)``.
public struct PostgresBackend: StoreBackend {
    /// The backend.
    public init() {}

    /// `postgres:` and `postgresql:`, as libpq reads both.
    public var schemes: [String] { ["postgres", "postgresql"] }

    /// The URL as given: libpq reads it.
    public func canonical(_ url: String) throws -> String {
        let lowered = url.lowercased()
        guard lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") else {
            throw StoreError.unsupportedURL(url)
        }
        return url
    }

    /// A pool of at most `options.poolSize` connections to the server (a server's database
    /// always exists: `creating` does not apply).
    public func open(_ url: DatabaseURL, options: StoreOpening) throws -> any Store {
        try PostgresStore(url: url.text, poolSize: options.poolSize, migrate: options.migrate)
    }

    /// The URL with its password (`user:secret@`) replaced by `***`.
    public func displayed(_ url: DatabaseURL) -> String {
        let text = url.text
        guard let scheme = text.range(of: "://") else { return text }
        let rest = text[scheme.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") else {
            return text
        }
        return String(text[..<rest.index(after: colon)]) + "***" + String(text[at...])
    }
}
