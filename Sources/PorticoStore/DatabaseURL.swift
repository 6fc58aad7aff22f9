/// A database location as the command line and environment give it (`--database`,
/// `PORTICO_DATABASE`): a scheme that names a registered backend (``StoreBackends``) and the
/// rest, which that backend reads.
///
/// Parsing is separate from opening so that the CLI can report a bad URL before doing
/// anything else; the backend is chosen here, in one place, and this type names none.
public struct DatabaseURL: Sendable, Hashable, CustomStringConvertible {
    /// The scheme, lowercased, without `:` (`sqlite`, `postgres`).
    public let scheme: String
    /// The URL as its backend writes it.
    public let text: String

    /// Parses a database URL of a registered backend.
    ///
    /// - Throws: ``StoreError/unsupportedURL(_:)`` for a URL without a registered scheme or one
    ///   its backend cannot use.
    public init(parsing text: String) throws {
        let trimmed = text.trimmingWhitespace
        guard let colon = trimmed.firstIndex(of: ":"), colon != trimmed.startIndex else {
            throw StoreError.unsupportedURL(text)
        }
        let scheme = trimmed[..<colon].lowercased()
        guard let backend = StoreBackends.backend(forScheme: scheme) else { throw StoreError.unsupportedURL(text) }
        self.scheme = scheme
        self.text = try backend.canonical(trimmed)
    }

    /// The backend that opens it.
    ///
    /// A URL is only made by parsing, which found its backend registered; registrations are
    /// never removed.
    public var backend: any StoreBackend {
        // Registered when this URL was parsed; backends are never unregistered.
        StoreBackends.backend(forScheme: scheme) ?? UnregisteredBackend()
    }

    /// The URL as its backend writes it.
    public var description: String { text }
}

/// What ``DatabaseURL/backend`` answers if a scheme were ever missing: a backend that opens
/// nothing, so that the failure is an ordinary ``StoreError``.
private struct UnregisteredBackend: StoreBackend {
    var schemes: [String] { [] }
    func canonical(_ url: String) throws -> String { throw StoreError.unsupportedURL(url) }
    func open(_ url: DatabaseURL, options: StoreOpening) throws -> any Store {
        throw StoreError.unsupportedURL(url.text)
    }
}

extension String {
    /// Without leading and trailing spaces and tabs (no Foundation needed here).
    fileprivate var trimmingWhitespace: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
