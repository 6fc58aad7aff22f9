extension SQLiteSchema {
    /// Version 17, passkeys (issue 26): each person's WebAuthn user handle (64 random bytes,
    /// unique), their credentials (the id unique across all accounts; public key, counter, BE/BS,
    /// name, dates), and the challenges of ceremonies under way (hash only, single use).
    static let version17 = [
        """
        CREATE TABLE passkey_user_handles (
            user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
            handle BLOB NOT NULL UNIQUE
        ) WITHOUT ROWID
        """,
        """
        CREATE TABLE passkey_credentials (
            credential_id BLOB PRIMARY KEY,
            user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            public_key BLOB NOT NULL,
            algorithm INTEGER NOT NULL,
            sign_count INTEGER NOT NULL,
            backup_eligible INTEGER NOT NULL,
            backed_up INTEGER NOT NULL,
            name TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            last_used_at INTEGER
        ) WITHOUT ROWID
        """,
        "CREATE INDEX passkey_credentials_user ON passkey_credentials (user_id)",
        """
        CREATE TABLE passkey_challenges (
            challenge_hash BLOB PRIMARY KEY,
            purpose TEXT NOT NULL,
            user_id TEXT REFERENCES users (id) ON DELETE CASCADE,
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL
        ) WITHOUT ROWID
        """,
        "CREATE INDEX passkey_challenges_expiry ON passkey_challenges (expires_at)",
        "PRAGMA user_version = 17",
    ]
}
