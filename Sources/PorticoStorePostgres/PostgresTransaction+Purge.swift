import Foundation
import PorticoStore
import PorticoStoreSQL

// What PostgreSQL's purge does its own way (``SQLPurging``); the deletes are written once.
extension PostgresTransaction: SQLPurging {
    /// With several nodes each runs a purger; one batch at a time is enough, and two running the
    /// same deletes at once would only wait on each other's row locks. So a purge first takes a
    /// transaction-scoped advisory lock without waiting: the node that gets it purges, any other
    /// finds it taken and returns an empty report (the lock ends with the transaction, so the
    /// next run of any node may take it).
    func takePurgeTurn() throws -> Bool {
        try first("SELECT pg_try_advisory_xact_lock(?) AS taken", [.int(Self.purgeLockKey)]) { try $0.bool("taken") }
            == true
    }

    /// Slices by primary key (no rowid here; an index by expiry would also turn every rotation's
    /// HOT update into one that writes index entries). The position row is locked first
    /// (`FOR UPDATE`), so two nodes purging at once take turns instead of deleting the same slice.
    func purgeRefreshFamilies(before cutoff: Date) throws -> Int {
        try write(
            "INSERT INTO purge_positions (name, last_key) VALUES ('refresh_families', '') ON CONFLICT (name) DO NOTHING",
            [])
        let start =
            try first(
                "SELECT last_key FROM purge_positions WHERE name = 'refresh_families' FOR UPDATE", []
            ) { try $0.text("last_key") } ?? ""
        // The slice's last id; empty past the end of the table, so the next run starts over.
        let end =
            try first(
                """
                SELECT coalesce(max(id), '') AS slice_end
                FROM (SELECT id FROM refresh_families WHERE id > ? ORDER BY id LIMIT ?) AS slice
                """,
                [.text(start), .int(SQLPurgeRetention.familySlice)]
            ) { try $0.text("slice_end") } ?? ""
        var deleted = 0
        if !end.isEmpty {
            deleted = try write(
                """
                DELETE FROM refresh_families WHERE id > ? AND id <= ?
                    AND (token_expires_at <= ? OR revoked_at <= ? OR (token_hash IS NULL AND created_at <= ?))
                """,
                [.text(start), .text(end), .date(cutoff), .date(cutoff), .date(cutoff)])
        }
        try write("UPDATE purge_positions SET last_key = ? WHERE name = 'refresh_families'", [.text(end)])
        return deleted
    }

    /// The advisory lock key of a purge batch ("portico purge" in ASCII, so it is recognisable
    /// in `pg_locks`).
    static var purgeLockKey: Int { 0x706F_7274_6963_6F50 }
}
