extension PostgresSchema {
    /// Version 15: the link from a refresh family to the Native SSO device session it was
    /// issued in becomes a column of the family's row, as in SQLite's version 15 (see
    /// `SQLiteSchema.version15`): one table less written by every Native SSO issuance. Removing
    /// a device session unlinks its families (`ON DELETE SET NULL`), as the old table's cascade
    /// did. SQLite's other change there, its audit log without `AUTOINCREMENT`, has nothing to
    /// match here: a PostgreSQL identity column costs no extra page per row.
    static let version15 = [
        "ALTER TABLE refresh_families ADD COLUMN device_session_id TEXT REFERENCES device_sessions (id) ON DELETE SET NULL",
        """
        UPDATE refresh_families AS f SET device_session_id = l.device_session_id
        FROM device_session_families AS l WHERE l.family_id = f.id
        """,
        "DROP TABLE device_session_families",
        """
        CREATE INDEX refresh_families_device_session ON refresh_families (device_session_id)
        WHERE device_session_id IS NOT NULL
        """,
    ]
}
