extension SQLiteSchema {
    /// Version 8, the companion (`portico-agent`): which clients are first-party companions,
    /// the companion sessions (one per refresh family, with the device's host name) and the
    /// consent tickets the companion redeems (hashed, single use, bound to a session).
    static let version8 = [
        """
        CREATE TABLE companion_clients (
            client_id TEXT PRIMARY KEY REFERENCES clients (id) ON DELETE CASCADE,
            created_at INTEGER NOT NULL
        ) WITHOUT ROWID
        """,
        """
        CREATE TABLE companion_sessions (
            id TEXT PRIMARY KEY,
            family_id TEXT NOT NULL UNIQUE REFERENCES refresh_families (id) ON DELETE CASCADE,
            user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            client_id TEXT NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
            host_name TEXT,
            created_at INTEGER NOT NULL
        )
        """,
        "CREATE INDEX companion_sessions_user ON companion_sessions (user_id)",
        """
        CREATE TABLE companion_tickets (
            ticket_hash BLOB PRIMARY KEY,
            session_id TEXT NOT NULL REFERENCES companion_sessions (id) ON DELETE CASCADE,
            kind TEXT NOT NULL,
            request TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            consumed_at INTEGER
        ) WITHOUT ROWID
        """,
        "CREATE INDEX companion_tickets_session ON companion_tickets (session_id)",
        "CREATE INDEX companion_tickets_expiry ON companion_tickets (expires_at)",
        "PRAGMA user_version = 8",
    ]
}
