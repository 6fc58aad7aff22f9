extension PostgresSchema {
    /// Version 18: as SQLite's version 18 (DPoP proofs seen, refresh families bound to a key,
    /// codes bound by `dpop_jkt`, clients that must use DPoP).
    static let version18 = [
        """
        CREATE TABLE dpop_proofs (
            proof_hash bytea PRIMARY KEY,
            expires_at bigint NOT NULL
        )
        """,
        "CREATE INDEX dpop_proofs_expiry ON dpop_proofs (expires_at)",
        """
        CREATE TABLE refresh_family_keys (
            family_id text PRIMARY KEY REFERENCES refresh_families (id) ON DELETE CASCADE,
            jkt text NOT NULL
        )
        """,
        "ALTER TABLE authorization_codes ADD COLUMN dpop_jkt text",
        "ALTER TABLE clients ADD COLUMN requires_dpop boolean NOT NULL DEFAULT false",
    ]
}
