extension PostgresSchema {
    /// Version 21, as SQLite's: developer-terms acceptance, console app ownership and
    /// co-developers, operators, and the previous secret's hash with its expiry (rotation overlap).
    static let version21 = [
        """
        CREATE TABLE developer_terms (
            user_id text PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
            accepted_at bigint NOT NULL
        )
        """,
        """
        CREATE TABLE developer_apps (
            client_id text PRIMARY KEY REFERENCES clients (id) ON DELETE CASCADE,
            owner_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            web_origins text NOT NULL DEFAULT '[]',
            created_at bigint NOT NULL
        )
        """,
        "CREATE INDEX developer_apps_owner ON developer_apps (owner_id)",
        """
        CREATE TABLE developer_collaborators (
            client_id text NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
            user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            role text NOT NULL,
            added_at bigint NOT NULL,
            PRIMARY KEY (client_id, user_id)
        )
        """,
        "CREATE INDEX developer_collaborators_user ON developer_collaborators (user_id)",
        """
        CREATE TABLE operators (
            user_id text PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
            granted_at bigint NOT NULL
        )
        """,
        "ALTER TABLE clients ADD COLUMN previous_secret_hash bytea",
        "ALTER TABLE clients ADD COLUMN previous_secret_expires_at bigint",
        // A removed app's access tokens are refused (their standing asks whether the app still
        // exists): nodes drop the standings they keep, as for a suspension (version 19).
        """
        CREATE TRIGGER portico_clients_removed_standing
            AFTER DELETE ON clients
            FOR EACH ROW EXECUTE FUNCTION portico_notify_standing()
        """,
    ]
}
