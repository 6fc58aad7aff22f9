import Foundation
import PorticoStore
import PorticoStoreSQL

// What SQLite's purge does its own way (``SQLPurging``); the deletes are written once.
extension SQLiteTransaction: SQLPurging {
    /// One writer at a time: a purge never meets another.
    func takePurgeTurn() throws -> Bool {
        true
    }

    /// Slices by rowid: a slice reads a bounded number of pages each run, and runs go round the
    /// table (at 10,000 a minute, a million families in under two hours).
    func purgeRefreshFamilies(before cutoff: Date) throws -> Int {
        let start =
            try first("SELECT last_rowid FROM purge_positions WHERE name = 'refresh_families'", []) {
                try $0.int("last_rowid")
            } ?? 0
        // The slice's last rowid; 0 past the end of the table, so the next run starts over.
        let end =
            try first(
                """
                SELECT coalesce(max(rowid), 0) AS slice_end
                FROM (SELECT rowid FROM refresh_families WHERE rowid > ? ORDER BY rowid LIMIT ?)
                """,
                [.int(start), .int(SQLPurgeRetention.familySlice)]
            ) { try $0.int("slice_end") } ?? 0
        var deleted = 0
        if end > start {
            deleted = try write(
                """
                DELETE FROM refresh_families WHERE rowid > ? AND rowid <= ?
                    AND (token_expires_at <= ? OR revoked_at <= ? OR (token_hash IS NULL AND created_at <= ?))
                """,
                [.int(start), .int(end), .date(cutoff), .date(cutoff), .date(cutoff)])
        }
        try write(
            """
            INSERT INTO purge_positions (name, last_rowid) VALUES ('refresh_families', ?)
            ON CONFLICT (name) DO UPDATE SET last_rowid = excluded.last_rowid
            """,
            [.int(end)])
        return deleted
    }
}
