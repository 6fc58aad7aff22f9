extension SQLiteSchema {
    /// Version 11, sign-up by e-mail verification: whether each account's address was proved
    /// (existing accounts: not known, so not verified), and the sign-ups waiting for their
    /// mailed link (the token's hash only, one per address, purged when expired).
    static let version11 = [
        "ALTER TABLE users ADD COLUMN email_verified INTEGER NOT NULL DEFAULT 0",
        """
        CREATE TABLE pending_signups (
            token_hash BLOB PRIMARY KEY,
            email TEXT NOT NULL,
            email_normalized TEXT NOT NULL UNIQUE,
            name TEXT NOT NULL,
            postal_code TEXT,
            password_hash TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL
        ) WITHOUT ROWID
        """,
        "CREATE INDEX pending_signups_expiry ON pending_signups (expires_at)",
        "PRAGMA user_version = 11",
    ]
}
