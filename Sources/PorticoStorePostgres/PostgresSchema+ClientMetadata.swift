extension PostgresSchema {
    /// Version 23: a client's `jwks_uri` (keys the provider fetches rather than keeps). Clients
    /// described by a client metadata document need no schema of their own: their row is an
    /// ordinary client whose id is the document's URL.
    static let version23 = [
        "ALTER TABLE clients ADD COLUMN jwks_uri text"
    ]
}
