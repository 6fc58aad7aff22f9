import CSQLite
import Foundation
import PorticoStore

/// A consistent copy of a live SQLite database file, made with SQLite's online backup API
/// (`sqlite3_backup_init`, `_step`, `_finish`) while servers keep writing to it.
///
/// Why the backup API and not a file copy: a copy of the database file alone misses what is still
/// in its write-ahead log, and a copy of both taken while a checkpoint runs can be torn. The
/// backup reads every page in one read transaction (one `sqlite3_backup_step(-1)`), which in WAL
/// mode neither waits for writers nor holds them up, so the copy is the database as of one
/// commit. It is written to a temporary file beside the destination (0600, as the store keeps its
/// files), checked with `PRAGMA integrity_check`, flushed to disk and only then linked under its
/// name, so a crash or a full disk never leaves a half copy where a restore would look for one,
/// and an existing file is never replaced.
public enum SQLiteBackup {
    /// What a finished backup holds.
    public struct Report: Sendable {
        /// Database pages copied.
        public let pages: Int
        /// Size of the copy in bytes.
        public let bytes: Int
    }

    /// How long a step that finds the source locked (a checkpoint in `TRUNCATE` mode, a writer
    /// changing the page size) is retried before the backup gives up.
    static let lockedRetrySeconds: Double = 30

    /// Copies the database at `source` to a new file `destination`.
    ///
    /// - Throws: ``StoreError/databaseMissing(_:)`` when `source` does not exist,
    ///   ``StoreError/io(_:)`` when `destination` exists or cannot be written,
    ///   ``StoreError/corrupt(_:)`` when the copy fails its integrity check.
    public static func copy(from source: String, to destination: String) throws -> Report {
        guard FileManager.default.fileExists(atPath: source) else { throw StoreError.databaseMissing(source) }
        if FileManager.default.fileExists(atPath: destination) {
            throw StoreError.io("\(destination) already exists; a backup never replaces a file, name a new one")
        }
        let partial = destination + ".partial-\(getpid())"
        let descriptor = open(partial, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StoreError.io("cannot create \(partial): \(String(cString: strerror(errno)))")
        }
        _ = fchmod(descriptor, 0o600)
        close(descriptor)
        defer {
            unlink(partial)
            unlink(partial + "-journal")
        }
        let pages = try copyPages(from: source, toFile: partial)
        guard let file = FileHandle(forUpdatingAtPath: partial) else {
            throw StoreError.io("cannot reopen \(partial) to flush it")
        }
        do {
            try file.synchronize()
            try file.close()
        } catch {
            throw StoreError.io("cannot flush \(partial): \(error.localizedDescription)")
        }
        guard link(partial, destination) == 0 else {
            throw StoreError.io("cannot name the copy \(destination): \(String(cString: strerror(errno)))")
        }
        synchronizeFolder(of: destination)
        var status = stat()
        let bytes = stat(destination, &status) == 0 ? Int(status.st_size) : 0
        return Report(pages: pages, bytes: bytes)
    }

    /// Runs the backup into the (empty) file `path` and checks the result; returns the pages
    /// copied.
    private static func copyPages(from source: String, toFile path: String) throws -> Int {
        let reader = try openDatabase(source, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX)
        defer { sqlite3_close_v2(reader) }
        sqlite3_busy_timeout(reader, 5000)
        let writer = try openDatabase(path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX)
        defer { sqlite3_close_v2(writer) }
        guard let backup = sqlite3_backup_init(writer, "main", reader, "main") else {
            throw StoreError.io("cannot start the backup: \(String(cString: sqlite3_errmsg(writer)))")
        }
        let deadline = Date(timeIntervalSinceNow: lockedRetrySeconds)
        var code: Int32
        repeat {
            // All pages in one step: one read transaction, so the copy is one commit's state.
            code = sqlite3_backup_step(backup, -1)
            if code == SQLITE_BUSY || code == SQLITE_LOCKED { usleep(50_000) }
        } while (code == SQLITE_BUSY || code == SQLITE_LOCKED || code == SQLITE_OK) && Date() < deadline
        let pages = Int(sqlite3_backup_pagecount(backup))
        sqlite3_backup_finish(backup)
        guard code == SQLITE_DONE else {
            let reason =
                code == SQLITE_BUSY || code == SQLITE_LOCKED
                ? "the database stayed locked for \(Int(lockedRetrySeconds)) s"
                : String(cString: sqlite3_errmsg(writer))
            throw StoreError.io("the backup failed: \(reason)")
        }
        let verdict = try integrity(of: writer)
        guard verdict == "ok" else { throw StoreError.corrupt("the copy failed its integrity check: \(verdict)") }
        return pages
    }

    /// The first line of `PRAGMA integrity_check` on `database` ("ok" when sound).
    private static func integrity(of database: OpaquePointer) throws -> String {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(database, "PRAGMA integrity_check", -1, &statement, nil) == SQLITE_OK,
            let statement
        else {
            throw StoreError.io("cannot check the copy: \(String(cString: sqlite3_errmsg(database)))")
        }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else {
            throw StoreError.io("cannot check the copy: \(String(cString: sqlite3_errmsg(database)))")
        }
        return String(cString: text)
    }

    private static func openDatabase(_ path: String, flags: Int32) throws -> OpaquePointer {
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard let handle else { throw StoreError.io("cannot open \(path): out of memory") }
        guard code == SQLITE_OK else {
            let message = String(cString: sqlite3_errmsg(handle))
            sqlite3_close_v2(handle)
            throw StoreError.io("cannot open \(path): \(message)")
        }
        return handle
    }

    /// Flushes the folder's entry of `path`, so the new name survives a crash too.
    private static func synchronizeFolder(of path: String) {
        let folder = (path as NSString).deletingLastPathComponent
        let descriptor = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }
}
