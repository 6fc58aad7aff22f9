extension SQLiteSchema {
    /// Version 16, Shared Signals (issue 29): one stream per client (removed with it), the
    /// people a receiver took out of its stream, and the SETs waiting to be polled (RFC 8936),
    /// in `jti` order (ids that sort by the time they were made). Pushed SETs go through the
    /// outbox of version 6.
    static let version16 = [
        """
        CREATE TABLE signal_streams (
            client_id TEXT PRIMARY KEY REFERENCES clients (id) ON DELETE CASCADE,
            stream_id TEXT NOT NULL UNIQUE,
            delivery_method TEXT NOT NULL,
            endpoint_url TEXT,
            authorization_header TEXT,
            events_requested TEXT NOT NULL,
            description TEXT,
            status TEXT NOT NULL,
            status_reason TEXT,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        ) WITHOUT ROWID
        """,
        """
        CREATE TABLE signal_stream_exclusions (
            client_id TEXT NOT NULL REFERENCES signal_streams (client_id) ON DELETE CASCADE,
            user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            created_at INTEGER NOT NULL,
            PRIMARY KEY (client_id, user_id)
        ) WITHOUT ROWID
        """,
        """
        CREATE TABLE signal_poll_queue (
            client_id TEXT NOT NULL REFERENCES signal_streams (client_id) ON DELETE CASCADE,
            jti TEXT NOT NULL,
            payload TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            PRIMARY KEY (client_id, jti)
        ) WITHOUT ROWID
        """,
        "PRAGMA user_version = 16",
    ]
}
