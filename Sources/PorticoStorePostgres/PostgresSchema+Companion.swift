extension PostgresSchema {
    /// Version 8, the companion: SQLite's version 8 in PostgreSQL's types.
    static let version8 = [
        """
        CREATE TABLE companion_clients (
            client_id text PRIMARY KEY REFERENCES clients (id) ON DELETE CASCADE,
            created_at bigint NOT NULL
        )
        """,
        """
        CREATE TABLE companion_sessions (
            id text PRIMARY KEY,
            family_id text NOT NULL UNIQUE REFERENCES refresh_families (id) ON DELETE CASCADE,
            user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            client_id text NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
            host_name text,
            created_at bigint NOT NULL
        )
        """,
        "CREATE INDEX companion_sessions_user ON companion_sessions (user_id)",
        """
        CREATE TABLE companion_tickets (
            ticket_hash bytea PRIMARY KEY,
            session_id text NOT NULL REFERENCES companion_sessions (id) ON DELETE CASCADE,
            kind text NOT NULL,
            request text NOT NULL,
            created_at bigint NOT NULL,
            expires_at bigint NOT NULL,
            consumed_at bigint
        )
        """,
        "CREATE INDEX companion_tickets_session ON companion_tickets (session_id)",
        "CREATE INDEX companion_tickets_expiry ON companion_tickets (expires_at)",
    ]
}
