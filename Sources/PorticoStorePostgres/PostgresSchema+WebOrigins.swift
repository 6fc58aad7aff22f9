extension PostgresSchema {
    /// Version 22: as SQLite's version 22 (the web origins the operator registered for an app).
    static let version22 = [
        """
        CREATE TABLE client_web_origins (
            client_id text PRIMARY KEY REFERENCES clients (id) ON DELETE CASCADE,
            web_origins text NOT NULL
        )
        """
    ]
}
