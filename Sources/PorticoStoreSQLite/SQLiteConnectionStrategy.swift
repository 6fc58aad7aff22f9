import PorticoStore
import PorticoStoreSQL

/// How ``SQLiteStore`` gives connections to threads.
///
/// Either way a connection is used by one thread at a time (so SQLite's own mutexes are off)
/// and keeps its prepared statements; the difference is only how many connections exist.
public enum SQLiteConnectionStrategy: Sendable, Hashable {
    /// Each thread that uses the store keeps its own connection (the DESIGN's model for a fixed
    /// HTTP thread pool): as many connections as threads, no waiting for one.
    case perThread
    /// Threads borrow from at most `maximumConnections` connections, waiting (up to the busy
    /// timeout) when all are lent out; bounds file handles when threads come and go.
    case pool(maximumConnections: Int)

    /// The strategy the store uses unless told otherwise: per-thread. In `portico-bench-store`
    /// the two measured within noise of each other (writes are paced by SQLite's single writer
    /// and the disk; reads by the CPU), so the choice follows the DESIGN's model for a fixed
    /// HTTP thread pool, in which no thread ever waits for a connection.
    public static var standard: SQLiteConnectionStrategy { .perThread }
}
