extension PostgresSchema {
    /// Version 17, as SQLite's: passkey user handles, credentials and pending challenges.
    static let version17 = [
        """
        CREATE TABLE passkey_user_handles (
            user_id text PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
            handle bytea NOT NULL UNIQUE
        )
        """,
        """
        CREATE TABLE passkey_credentials (
            credential_id bytea PRIMARY KEY,
            user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            public_key bytea NOT NULL,
            algorithm bigint NOT NULL,
            sign_count bigint NOT NULL,
            backup_eligible boolean NOT NULL,
            backed_up boolean NOT NULL,
            name text NOT NULL,
            created_at bigint NOT NULL,
            last_used_at bigint
        )
        """,
        "CREATE INDEX passkey_credentials_user ON passkey_credentials (user_id)",
        """
        CREATE TABLE passkey_challenges (
            challenge_hash bytea PRIMARY KEY,
            purpose text NOT NULL,
            user_id text REFERENCES users (id) ON DELETE CASCADE,
            created_at bigint NOT NULL,
            expires_at bigint NOT NULL
        )
        """,
        "CREATE INDEX passkey_challenges_expiry ON passkey_challenges (expires_at)",
    ]
}
