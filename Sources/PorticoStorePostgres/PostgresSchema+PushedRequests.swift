extension PostgresSchema {
    /// Version 20: as SQLite's version 20 (pushed authorization requests, clients that must
    /// push theirs, the security profile a client is held to).
    static let version20 = [
        """
        CREATE TABLE pushed_requests (
            uri_hash bytea PRIMARY KEY,
            client_id text NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
            parameters text NOT NULL,
            expires_at bigint NOT NULL
        )
        """,
        "CREATE INDEX pushed_requests_expiry ON pushed_requests (expires_at)",
        "ALTER TABLE clients ADD COLUMN requires_par boolean NOT NULL DEFAULT false",
        "ALTER TABLE clients ADD COLUMN security_profile text",
    ]
}
