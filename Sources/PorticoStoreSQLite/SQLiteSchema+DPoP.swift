extension SQLiteSchema {
    /// Version 18, sender-constrained tokens (DPoP, RFC 9449): the proofs already accepted
    /// (a hash of the key's thumbprint and the proof's `jti`, kept until the proof's window has
    /// passed, so a proof is accepted once on every node), the key a public client's refresh
    /// family is bound to (a table of its own, so that bearer families, nearly all, cost
    /// nothing), the key an authorization code is bound to by `dpop_jkt`, and the clients that
    /// must use DPoP (`--dpop`). New columns have defaults: existing clients and codes behave as
    /// they did.
    static let version18 = [
        """
        CREATE TABLE dpop_proofs (
            proof_hash BLOB PRIMARY KEY,
            expires_at INTEGER NOT NULL
        ) WITHOUT ROWID
        """,
        "CREATE INDEX dpop_proofs_expiry ON dpop_proofs (expires_at)",
        """
        CREATE TABLE refresh_family_keys (
            family_id TEXT PRIMARY KEY REFERENCES refresh_families (id) ON DELETE CASCADE,
            jkt TEXT NOT NULL
        ) WITHOUT ROWID
        """,
        "ALTER TABLE authorization_codes ADD COLUMN dpop_jkt TEXT",
        "ALTER TABLE clients ADD COLUMN requires_dpop INTEGER NOT NULL DEFAULT 0",
        "PRAGMA user_version = 18",
    ]
}
