import CSQLite
import Foundation
import PorticoStore
import PorticoStoreSQL

/// Copies the write-ahead log back into the database file on a thread of its own, so that no
/// request pays for a checkpoint, and keeps the log from growing without bound.
///
/// Why: with SQLite's automatic checkpoints, the commit that pushes the WAL past 1,000 pages
/// runs the checkpoint itself: it reads the log, writes the database file and waits for
/// `fdatasync`, all while this process's writers queue behind it. The server's connections
/// therefore turn automatic checkpoints off, report the log's size from a WAL hook after each
/// commit, and this thread runs a `PASSIVE` checkpoint (which never blocks readers or writers)
/// once ``threshold`` new pages were logged since the last one, or every ``interval`` at the
/// latest when anything was written.
///
/// A passive checkpoint alone is not enough under a steady stream of writes: SQLite starts the
/// log over only when a writer finds it completely copied, and with commits arriving while the
/// copy runs that moment never comes. The log then grows for as long as the load lasts (420 MB
/// in seven seconds of refresh-token rotations) and every page lookup walks an ever longer
/// WAL index: rotations fell from 2,400/s towards 1,000/s. So once the log is longer than
/// ``restartThreshold`` pages, the thread takes the store's writer lock (queueing like any
/// request) and runs a `RESTART` checkpoint: it copies the few pages the passive one left,
/// waits for readers still on the old log, and lets the next commit write from the start of the
/// file again. Writers wait for that one `fdatasync` only, a few times a second at most.
///
/// Other processes on the same file (the admin commands) keep SQLite's defaults; the two mix
/// safely.
///
/// `@unchecked Sendable`: the connection is used only by the checkpointer thread, and the
/// mutable state only under `condition`.
final class SQLiteCheckpointer: @unchecked Sendable {
    /// Pages logged since the last checkpoint at which the next one starts. The default, 4,000
    /// (SQLite's automatic checkpoints use 1,000), lets a page written again and again (index
    /// roots, the last leaf of a table) be copied once for many commits.
    let threshold: Int32
    /// Log length (pages, 4 KiB each) beyond which the log is started over; the default of
    /// 16,000 bounds the WAL file at about 64 MiB plus what is written during one checkpoint and
    /// the (at most ``catchUpRounds``, each shorter) rounds that catch up before the restart.
    let restartThreshold: Int32
    /// Longest time a restart waits for readers still on the old log before giving up until
    /// the next round.
    static let restartWaitMilliseconds: Int32 = 200
    /// Longest time written pages wait for their checkpoint.
    let interval: TimeInterval
    private let condition = NSCondition()
    /// Closed by the thread after its last checkpoint, so that a stopped store holds no
    /// connection to the file (SQLite removes the log when the last one closes).
    private var connection: SQLiteConnection?
    /// The store's writer queue, taken for a restart so that no commit is refused meanwhile.
    private let writers: FairLock
    private let lockTimeout: TimeInterval
    /// Pages in the log after the last checkpoint (new pages are counted from there).
    private var checkpointedPages: Int32 = 0
    /// Pages logged since the last checkpoint; -1 when nothing was.
    private var pendingPages: Int32 = -1
    private var isStopped = false
    private var finished = false
    /// How many times the log was started over, for tests (read it under no other lock).
    var restarts: Int {
        condition.lock()
        defer { condition.unlock() }
        return restartCount
    }
    private var restartCount = 0

    /// Starts the thread with a connection of its own to `path`; restarts of the log queue on
    /// `writers` for at most `lockTimeout` seconds.
    init(
        path: String, busyTimeoutMilliseconds: Int32, writers: FairLock, lockTimeout: TimeInterval,
        interval: TimeInterval = 1, threshold: Int32 = 4000, restartThreshold: Int32 = 16000
    ) throws {
        self.threshold = threshold
        self.restartThreshold = restartThreshold
        // Short: a restart waits this long at most for readers of the old log (and for a writer
        // of another process), while this process's writers wait for it.
        connection = try SQLiteConnection(
            path: path, busyTimeoutMilliseconds: min(busyTimeoutMilliseconds, Self.restartWaitMilliseconds))
        self.writers = writers
        self.lockTimeout = lockTimeout
        self.interval = interval
        // Not kept: the thread's closure holds this checkpointer, so keeping the thread made a
        // cycle that outlived the store (AddressSanitizer's leak report of every `portico serve`).
        let thread = Thread { [self] in run() }
        thread.name = "portico-sqlite-checkpoint"
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
        // A log shorter than at the last checkpoint was started over by this very commit.
        pendingPages = pages >= checkpointedPages ? pages - checkpointedPages : pages
        if pendingPages >= threshold { condition.signal() }
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
            if pendingPages < threshold {
                _ = condition.wait(until: Date().addingTimeInterval(interval))
            }
            let due = pendingPages >= 0
            pendingPages = -1
            condition.unlock()
            let pages = due ? checkpoint() : nil
            condition.lock()
            if let pages { checkpointedPages = pages }
        }
        condition.unlock()
        _ = checkpoint()
        connection = nil
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// A passive checkpoint, then a restart when the log has grown too long; returns the log's
    /// length afterwards (nil when SQLite could not tell).
    ///
    /// Before the restart, passive rounds run again (a few at most) until little of the log is
    /// left to copy. Why: the restart holds every writer of this process while it copies what is
    /// left and waits for `fdatasync` of the log and of the database, and the log's sync has to
    /// write out every frame logged since the last one, which after a long passive round was
    /// thousands (measured: the writers stood still 8 ms on average per restart, up to 25 ms,
    /// twice a second under Native SSO exchanges). Each catch-up round copies and syncs what
    /// the round before it left, outside the lock, so the restart is left with the frames of
    /// the last, short round.
    ///
    /// Failures (busy, I/O) are left to the next round and to SQLite's own checkpoint when the
    /// last connection closes.
    private func checkpoint() -> Int32? {
        // PASSIVE: copies what no reader still needs and never waits.
        guard var log = checkpoint(mode: SQLITE_CHECKPOINT_PASSIVE) else { return nil }
        guard log.logged > restartThreshold else { return log.logged }
        // A round reports the log as it was when it began, so what was appended meanwhile shows
        // in the next round's length only.
        for _ in 0..<Self.catchUpRounds {
            guard let next = checkpoint(mode: SQLITE_CHECKPOINT_PASSIVE) else { break }
            let appended = next.logged - log.logged
            log = next
            if appended <= Self.restartBacklog { break }
        }
        // Holding the writer lock, nothing can be appended while the restart waits for the
        // readers, and the next commit of this process starts the log over.
        let restarted = try? writers.withLock(timeout: lockTimeout) { checkpoint(mode: SQLITE_CHECKPOINT_RESTART) }
        guard restarted != nil else { return log.logged }
        condition.lock()
        restartCount += 1
        // What was logged before the restart is in the database now. Counting it as due would
        // start the next round at once, racing the next commit, which starts the log over only
        // if no checkpoint holds the readers' locks just then; lost, the log grows on.
        pendingPages = -1
        condition.unlock()
        // The next commit writes from the start of the log.
        return 0
    }

    /// Passive rounds at most before a restart.
    static let catchUpRounds = 3
    /// Frames (4 KiB each) appended during a round below which the restart follows at once.
    static let restartBacklog: Int32 = 256

    /// Runs one checkpoint; the log's length and how many of its frames are in the database
    /// now, or nil when it failed.
    private func checkpoint(mode: Int32) -> (logged: Int32, copied: Int32)? {
        var logged: Int32 = 0
        var copied: Int32 = 0
        guard let connection else { return nil }
        let status = sqlite3_wal_checkpoint_v2(connection.handle, nil, mode, &logged, &copied)
        return status == SQLITE_OK ? (logged, copied) : nil
    }
}
