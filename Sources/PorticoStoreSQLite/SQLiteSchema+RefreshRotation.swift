extension SQLiteSchema {
    /// Version 14, refresh rotation: nothing to change here. PostgreSQL's version 14 leaves room
    /// in the pages of `refresh_families` for its rotations (a storage setting SQLite has no
    /// counterpart of); the version is kept so that both backends number the same schema.
    static let version14 = [
        "PRAGMA user_version = 14"
    ]
}
