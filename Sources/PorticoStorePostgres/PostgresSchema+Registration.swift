extension PostgresSchema {
    /// Version 19, as SQLite's: initial access tokens, registration access tokens, and the
    /// clients' suspension and verification.
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
        "ALTER TABLE clients ADD COLUMN suspended_at bigint",
        "ALTER TABLE clients ADD COLUMN verified boolean NOT NULL DEFAULT true",
        // A suspension refuses the app's access tokens at once: nodes drop the standings they
        // keep, as for a revocation (version 13).
        """
        CREATE TRIGGER portico_clients_suspension_standing
            AFTER UPDATE ON clients
            FOR EACH ROW
            WHEN (OLD.suspended_at IS DISTINCT FROM NEW.suspended_at)
            EXECUTE FUNCTION portico_notify_standing()
        """,
    ]
}
