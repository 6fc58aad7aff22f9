/// What text every backend can hold, so that the provider can refuse the rest as the request's
/// own error before it reaches a store.
///
/// Why here: the limit is a property of the storage contract, not of one backend. PostgreSQL's
/// `text` cannot hold a NUL character (SQLite's can), so a value with one is unstorable
/// everywhere: a lookup by it can match nothing that was stored, and a write of it would fail on
/// one backend and not the other. Backends still refuse such a value themselves
/// (``StoreError/invalidArgument(_:)``), which the provider answers as a bad request; checking
/// first gives the request its proper error (an unknown client, an unknown account).
public enum StoredText {
    /// Whether every backend can store `text` as it is.
    public static func canHold(_ text: String) -> Bool {
        !text.utf8.contains(0)
    }
}
