extension SQLiteSchema {
    /// Version 22, FedCM (issue 30): the web origins the operator registered for an app with
    /// `portico client add --web-origin` (the console keeps its apps' in `developer_apps`). The
    /// FedCM assertion endpoint answers only requests from one of an app's origins.
    static let version22 = [
        """
        CREATE TABLE client_web_origins (
            client_id TEXT PRIMARY KEY REFERENCES clients (id) ON DELETE CASCADE,
            web_origins TEXT NOT NULL
        ) WITHOUT ROWID
        """,
        "PRAGMA user_version = 22",
    ]
}
