extension SQLiteSchema {
    /// Version 24: sign-ins per app per UTC day (days since 1970), for the developer console's chart.
    static let version24 = [
        """
        CREATE TABLE client_sign_in_days (
            client_id TEXT NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
            day INTEGER NOT NULL,
            sign_ins INTEGER NOT NULL,
            PRIMARY KEY (client_id, day)
        ) WITHOUT ROWID
        """,
        "PRAGMA user_version = 24",
    ]
}
