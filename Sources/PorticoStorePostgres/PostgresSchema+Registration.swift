extension PostgresSchema {
    /// Version 19, as SQLite's: initial access tokens and registration access tokens.
    static let version19 = [
        """
        CREATE TABLE initial_access_tokens (
            token_hash bytea PRIMARY KEY,
            uses_left bigint,
            expires_at bigint,
            created_at bigint NOT NULL
        )
        """,
        """
        CREATE TABLE client_registrations (
            client_id text PRIMARY KEY REFERENCES clients (id) ON DELETE CASCADE,
            token_hash bytea NOT NULL UNIQUE,
            auth_method text NOT NULL
        )
        """,
    ]
}
