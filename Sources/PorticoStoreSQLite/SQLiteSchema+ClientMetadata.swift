extension SQLiteSchema {
    /// Version 23: a client's `jwks_uri` (keys the provider fetches rather than keeps). Clients
    /// described by a client metadata document need no schema of their own: their row is an
    /// ordinary client whose id is the document's URL.
    static let version23 = [
        "ALTER TABLE clients ADD COLUMN jwks_uri TEXT",
        "PRAGMA user_version = 23",
    ]
}

extension SQLiteSchema {
    /// Version 25: a client's terms of service URL (`tos_uri`), which FedCM's dialog links.
    static let version25 = [
        "ALTER TABLE clients ADD COLUMN terms_url TEXT",
        "PRAGMA user_version = 25",
    ]
}
