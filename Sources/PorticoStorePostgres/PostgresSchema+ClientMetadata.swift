extension PostgresSchema {
    /// Version 23: a client's `jwks_uri` (keys the provider fetches rather than keeps). Clients
    /// described by a client metadata document need no schema of their own: their row is an
    /// ordinary client whose id is the document's URL.
    static let version23 = [
        "ALTER TABLE clients ADD COLUMN jwks_uri text"
    ]
}

extension PostgresSchema {
    /// Version 25, as SQLite's: a client's terms of service URL (`tos_uri`).
    static let version25 = [
        "ALTER TABLE clients ADD COLUMN terms_url text"
    ]
}
