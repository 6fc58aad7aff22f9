extension SQLiteSchema {
    /// Version 15: fewer b-trees written by every token issuance.
    ///
    /// Each b-tree a transaction changes costs its commit at least one 4 KiB page in the log
    /// (and the checkpoint another write of it), however little changed in it. A Native SSO
    /// exchange wrote eleven pages on average. Two of them go:
    ///
    /// - The link from a refresh family to the Native SSO device session it was issued in moves
    ///   from a table of its own (`device_session_families`, a b-tree and an index) into a
    ///   column of the family's row, whose page the issuance writes anyway, with a partial index
    ///   that holds the linked families only. Removing a device session unlinks its families
    ///   (`ON DELETE SET NULL`), as the old table's cascade did; removing a family takes its
    ///   link with it.
    /// - The audit log's sequence loses `AUTOINCREMENT`, which updated `sqlite_sequence` (one
    ///   more page) on every append. Its only promise beyond a plain integer key, that numbers
    ///   of deleted rows are never reused, is kept by the log itself: rows are never deleted
    ///   (a trigger refuses it), so the next number is always one more than the largest.
    ///
    /// PostgreSQL's version 15 moves the link the same way (the two schemas stay table for table);
    /// its audit log's identity column costs no extra page, so that half has no counterpart.
    static let version15 = [
        "ALTER TABLE refresh_families ADD COLUMN device_session_id TEXT REFERENCES device_sessions (id) ON DELETE SET NULL",
        """
        UPDATE refresh_families SET device_session_id = (
            SELECT l.device_session_id FROM device_session_families l WHERE l.family_id = refresh_families.id)
        WHERE id IN (SELECT family_id FROM device_session_families)
        """,
        "DROP TABLE device_session_families",
        """
        CREATE INDEX refresh_families_device_session ON refresh_families (device_session_id)
        WHERE device_session_id IS NOT NULL
        """,
        """
        CREATE TABLE audit_log_v15 (
            sequence INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            occurred_at INTEGER NOT NULL,
            actor TEXT NOT NULL,
            action TEXT NOT NULL,
            subject TEXT NOT NULL,
            details TEXT NOT NULL
        )
        """,
        """
        INSERT INTO audit_log_v15 (sequence, id, occurred_at, actor, action, subject, details)
        SELECT sequence, id, occurred_at, actor, action, subject, details FROM audit_log ORDER BY sequence
        """,
        // Its triggers go with it (and a dropped table's implicit delete fires none).
        "DROP TABLE audit_log",
        "ALTER TABLE audit_log_v15 RENAME TO audit_log",
        """
        CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
        BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END
        """,
        """
        CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
        BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END
        """,
        "PRAGMA user_version = 15",
    ]
}
