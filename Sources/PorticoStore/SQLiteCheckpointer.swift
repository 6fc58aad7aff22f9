import CSQLite
import Foundation

/// Copies the write-ahead log back into the database file on a thread of its own, so that no
/// request pays for a checkpoint.
///
/// Why: with SQLite's automatic checkpoints, the commit that pushes the WAL past 1,000 pages
/// runs the checkpoint itself: it reads the log, writes the database file and waits for
/// `fdatasync`, all while this process's writers queue behind it. The server's connections
/// therefore turn automatic checkpoints off, report the log's size from a WAL hook after each
/// commit, and this thread runs a `PASSIVE` checkpoint (which never blocks readers or writers)
/// once the log has grown past ``threshold`` pages, or every ``interval`` at the latest when
/// anything was written. Other processes on the same file (the admin commands) keep SQLite's
/// defaults; the two mix safely.
///
/// `@unchecked Sendable`: the connection is used only by the checkpointer thread, and the
/// mutable state only under `condition`.
final class SQLiteCheckpointer: @unchecked Sendable {
    /// Log size (pages) at which a checkpoint is started, as SQLite's automatic default.
    static let threshold: Int32 = 1000
    /// Longest time written pages wait for their checkpoint.
    let interval: TimeInterval
    private let condition = NSCondition()
    private let connection: SQLiteConnection
    private var pendingPages: Int32 = 0
    private var isStopped = false
    private var thread: Thread?
    private var finished = false

    /// Starts the thread with a connection of its own to `path`.
    init(path: String, busyTimeoutMilliseconds: Int32, interval: TimeInterval = 1) throws {
        connection = try SQLiteConnection(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        self.interval = interval
        let thread = Thread { [self] in run() }
        thread.name = "portico-sqlite-checkpoint"
        self.thread = thread
        thread.start()
    }

    /// Makes `connection` leave checkpoints to this thread: no automatic checkpoints, and a WAL
    /// hook that reports the log's size after every commit.
    ///
    /// The hook holds an unretained reference; the store stops this checkpointer only after
    /// closing every connection it attached.
    func attach(_ connection: SQLiteConnection) throws {
        try connection.execute("PRAGMA wal_autocheckpoint=0")
        sqlite3_wal_hook(
            connection.handle,
            { context, _, _, pages in
                if let context {
                    Unmanaged<SQLiteCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(pages: pages)
                }
                return SQLITE_OK
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Called by the WAL hook on the committing thread: remember the log's size and wake the
    /// thread when a checkpoint is due.
    private func committed(pages: Int32) {
        condition.lock()
        pendingPages = max(pendingPages, pages, 1)
        if pages >= Self.threshold { condition.signal() }
        condition.unlock()
    }

    /// Stops the thread after one last checkpoint and waits for it.
    func stop() {
        condition.lock()
        isStopped = true
        condition.signal()
        while !finished { condition.wait() }
        condition.unlock()
    }

    private func run() {
        condition.lock()
        while !isStopped {
            if pendingPages < Self.threshold {
                _ = condition.wait(until: Date().addingTimeInterval(interval))
            }
            let due = pendingPages > 0
            pendingPages = 0
            condition.unlock()
            if due { checkpoint() }
            condition.lock()
        }
        condition.unlock()
        checkpoint()
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    private func checkpoint() {
        // PASSIVE: copies what no reader still needs and never waits; what is left is copied
        // next time. Failures (busy, I/O) are left to the next round and to SQLite's own
        // checkpoint when the last connection closes.
        try? connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
    }
}
