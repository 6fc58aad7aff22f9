extension PostgresSchema {
    /// Version 24, as SQLite's: sign-ins per app per UTC day (days since 1970).
    static let version24 = [
        """
        CREATE TABLE client_sign_in_days (
            client_id text NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
            day integer NOT NULL,
            sign_ins bigint NOT NULL,
            PRIMARY KEY (client_id, day)
        )
        """
    ]
}
