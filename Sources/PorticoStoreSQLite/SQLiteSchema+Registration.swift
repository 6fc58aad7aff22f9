extension SQLiteSchema {
    /// Version 19, dynamic client registration (issue 28): initial access tokens (hash only,
    /// uses left, expiry) and each dynamically registered client's registration access token
    /// (hash only; removed with the client); the operator's say over apps: when an app was
    /// suspended, and whether it is verified (apps added before are).
    static let version19 = [
        """
        CREATE TABLE initial_access_tokens (
            token_hash BLOB PRIMARY KEY,
            uses_left INTEGER,
            expires_at INTEGER,
            created_at INTEGER NOT NULL
        ) WITHOUT ROWID
        """,
        """
        CREATE TABLE client_registrations (
            client_id TEXT PRIMARY KEY REFERENCES clients (id) ON DELETE CASCADE,
            token_hash BLOB NOT NULL UNIQUE,
            auth_method TEXT NOT NULL
        ) WITHOUT ROWID
        """,
        "ALTER TABLE clients ADD COLUMN suspended_at INTEGER",
        "ALTER TABLE clients ADD COLUMN verified INTEGER NOT NULL DEFAULT 1",
        "PRAGMA user_version = 19",
    ]
}
