import Foundation
import PorticoStore
import PorticoStoreSQL

/// The one connection that runs this process's write transactions, behind the writers' queue.
///
/// Why one connection for every writer: in WAL mode a connection throws its whole page cache
/// away whenever it finds that *another* connection changed the database. With writes spread
/// over one connection per HTTP thread, each write transaction therefore began with a cold
/// cache and read every index page again through `pread` (13 % of the server's time under
/// refresh rotation). SQLite runs one writer at a time anyway, so giving all writes to a single
/// connection costs no concurrency, and that connection's cache stays warm: it only ever sees
/// its own changes. (A bigger cache for it measured no faster: SQLite's default of 2,000 KiB
/// holds the index pages a write goes through.)
///
/// `@unchecked Sendable`: `connection` is read and written only while `queue` is held.
final class SQLiteWriter: @unchecked Sendable {
    /// Queues the writers first come, first served (shared with the checkpointer, which takes it
    /// to start the log over).
    let queue: FairLock
    private let open: () throws -> SQLiteConnection
    private var connection: SQLiteConnection?
    private var isClosed = false

    /// A writer queued on `queue` that opens its connection with `open` when first needed, and
    /// again after a failure left the previous one inside a transaction.
    init(queue: FairLock, open: @escaping () throws -> SQLiteConnection) {
        self.queue = queue
        self.open = open
    }

    /// Takes the queue (waiting at most `timeout` seconds) and runs `body` with the connection.
    func withConnection<T>(timeout: TimeInterval, _ body: (SQLiteConnection) throws -> T) throws -> T {
        try queue.withLock(timeout: timeout) {
            guard !isClosed else { throw StoreError.closed }
            if connection?.isInTransaction ?? true {
                connection = nil
                connection = try open()
            }
            // Non-nil: opened just above when it was missing.
            guard let connection else { throw StoreError.closed }
            return try body(connection)
        }
    }

    /// Closes the connection once the transaction running now (if any) has ended; later
    /// transactions fail with ``StoreError/closed``.
    func close() {
        // A transaction that holds the queue longer than this has hung; its connection then
        // closes when it finally returns.
        try? queue.withLock(timeout: 30) {
            isClosed = true
            connection = nil
        }
    }
}
