extension SQLiteSchema {
    /// Version 21, the developer console (issue 28): when each person accepted the developer
    /// terms, who owns an app made in the console (and its web origins), the co-developers of
    /// such apps, and the hash of an app's previous secret with the instant it stops working
    /// (a rotation's overlap), and who may see the operator's list of apps. Hashes only.
    static let version21 = [
        """
        CREATE TABLE developer_terms (
            user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
            accepted_at INTEGER NOT NULL
        ) WITHOUT ROWID
        """,
        """
        CREATE TABLE developer_apps (
            client_id TEXT PRIMARY KEY REFERENCES clients (id) ON DELETE CASCADE,
            owner_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            web_origins TEXT NOT NULL DEFAULT '[]',
            created_at INTEGER NOT NULL
        ) WITHOUT ROWID
        """,
        "CREATE INDEX developer_apps_owner ON developer_apps (owner_id)",
        """
        CREATE TABLE developer_collaborators (
            client_id TEXT NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
            user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            role TEXT NOT NULL,
            added_at INTEGER NOT NULL,
            PRIMARY KEY (client_id, user_id)
        ) WITHOUT ROWID
        """,
        "CREATE INDEX developer_collaborators_user ON developer_collaborators (user_id)",
        """
        CREATE TABLE operators (
            user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
            granted_at INTEGER NOT NULL
        ) WITHOUT ROWID
        """,
        "ALTER TABLE clients ADD COLUMN previous_secret_hash BLOB",
        "ALTER TABLE clients ADD COLUMN previous_secret_expires_at INTEGER",
        "PRAGMA user_version = 21",
    ]
}
