extension PostgresSchema {
    /// Version 11, as SQLite's: whether each account's address was proved (existing accounts:
    /// not verified), and the sign-ups waiting for their mailed link.
    static let version11 = [
        "ALTER TABLE users ADD COLUMN email_verified boolean NOT NULL DEFAULT false",
        """
        CREATE TABLE pending_signups (
            token_hash bytea PRIMARY KEY,
            email text NOT NULL,
            email_normalized text NOT NULL UNIQUE,
            name text NOT NULL,
            postal_code text,
            password_hash text NOT NULL,
            created_at bigint NOT NULL,
            expires_at bigint NOT NULL
        )
        """,
        "CREATE INDEX pending_signups_expiry ON pending_signups (expires_at)",
    ]
}
