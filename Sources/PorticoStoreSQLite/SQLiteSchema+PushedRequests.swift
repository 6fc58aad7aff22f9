extension SQLiteSchema {
    /// Version 20, pushed authorization requests (RFC 9126): each request a client pushed,
    /// under a hash of its `request_uri`'s random part, until `/oauth/authorize` takes it or it
    /// expires; the clients that must push theirs (`--require-par`) and the security profile a
    /// client is held to (`--profile fapi2`). Existing clients keep sending plain authorization
    /// requests.
    static let version20 = [
        """
        CREATE TABLE pushed_requests (
            uri_hash BLOB PRIMARY KEY,
            client_id TEXT NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
            parameters TEXT NOT NULL,
            expires_at INTEGER NOT NULL
        ) WITHOUT ROWID
        """,
        "CREATE INDEX pushed_requests_expiry ON pushed_requests (expires_at)",
        "ALTER TABLE clients ADD COLUMN requires_par INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE clients ADD COLUMN security_profile TEXT",
        "PRAGMA user_version = 20",
    ]
}
