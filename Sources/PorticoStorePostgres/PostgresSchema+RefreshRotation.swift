extension PostgresSchema {
    /// Version 14, refresh rotation: every refresh grant rewrites its family's row, so the
    /// table's pages keep a quarter free. The new row version then fits on the same page and the
    /// update is HOT (no index entries written, none to clean up): at the default of 100, only
    /// about 4 in 10 rotations of a freshly written table were. Rows already stored keep their
    /// pages; those written from now on get the room. No table or column changes, as in
    /// SQLite's version 14.
    static let version14 = [
        "ALTER TABLE refresh_families SET (fillfactor = 75)"
    ]
}
