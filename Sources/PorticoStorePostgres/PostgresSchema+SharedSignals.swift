extension PostgresSchema {
    /// Version 16, Shared Signals: as SQLite's version 16 (streams, excluded subjects, the poll
    /// queue).
    static let version16 = [
        """
        CREATE TABLE signal_streams (
            client_id text PRIMARY KEY REFERENCES clients (id) ON DELETE CASCADE,
            stream_id text NOT NULL UNIQUE,
            delivery_method text NOT NULL,
            endpoint_url text,
            authorization_header text,
            events_requested text NOT NULL,
            description text,
            status text NOT NULL,
            status_reason text,
            created_at bigint NOT NULL,
            updated_at bigint NOT NULL
        )
        """,
        """
        CREATE TABLE signal_stream_exclusions (
            client_id text NOT NULL REFERENCES signal_streams (client_id) ON DELETE CASCADE,
            user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            created_at bigint NOT NULL,
            PRIMARY KEY (client_id, user_id)
        )
        """,
        """
        CREATE TABLE signal_poll_queue (
            client_id text NOT NULL REFERENCES signal_streams (client_id) ON DELETE CASCADE,
            jti text NOT NULL,
            payload text NOT NULL,
            created_at bigint NOT NULL,
            PRIMARY KEY (client_id, jti)
        )
        """,
    ]
}
