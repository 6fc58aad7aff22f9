import CLibPQ
import Foundation
import PorticoStore
import PorticoStoreSQL

/// A fixed number of libpq connections shared by the threads that use the store.
///
/// Connections are opened when first needed, up to `capacity`; a thread that finds them all in
/// use waits up to `checkoutTimeout` and then gets a ``PostgresError/Kind/timeout`` instead of
/// waiting forever. A connection that libpq reports broken, or whose server said goodbye while
/// it sat idle (a restart sends `57P01` to every idle connection), is dropped on its way out or
/// back, and the next checkout opens a fresh one: the store reconnects by itself after the server
/// went away and came back.
final class PostgresConnectionPool: @unchecked Sendable {
    let capacity: Int
    private let url: PostgresURL
    private let checkoutTimeout: TimeInterval
    private let checksIdleConnections: Bool
    /// Moved by the notifications pooled connections receive, once it is started (each
    /// connection then listens too, so a commit's own notification moves it before the
    /// commit's caller goes on).
    private let feed: PostgresStandingFeed?
    /// The most socket reads one connection gets per ``drainIdleConnections()`` (libpq reads
    /// 8 to 16 KB at a time): enough to catch up with hundreds of thousands of notifications a
    /// second, few enough that the connection is soon back.
    static let drainReadsPerConnection = 64
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var idle: [PostgresConnection] = []
    private var open = 0
    private var closed = false

    /// - Parameter checksIdleConnections: whether a reused connection is first checked for a
    ///   goodbye from its server (tests turn it off to reach the store's second line of defence).
    init(
        url: PostgresURL, capacity: Int, checkoutTimeout: TimeInterval = 10, checksIdleConnections: Bool = true,
        feed: PostgresStandingFeed? = nil
    ) {
        self.url = url
        self.feed = feed
        self.capacity = max(1, capacity)
        self.checkoutTimeout = checkoutTimeout
        self.checksIdleConnections = checksIdleConnections
    }

    /// Connections open now (idle or in use), for tests and metrics.
    var openConnections: Int {
        condition.lock()
        defer { condition.unlock() }
        return open
    }

    /// A connection for the caller's exclusive use until ``checkIn(_:)``, and whether it was used
    /// before (a reused connection may have lost its server without noticing yet).
    func checkOut() throws -> (connection: PostgresConnection, reused: Bool) {
        let deadline = Date(timeIntervalSinceNow: checkoutTimeout)
        condition.lock()
        while true {
            if closed {
                condition.unlock()
                throw StoreError.closed
            }
            if let connection = idle.popLast() {
                condition.unlock()
                if checksIdleConnections && connection.hasLostServer() || !listensIfFollowing(connection) {
                    drop()
                    condition.lock()
                    continue
                }
                return (connection, true)
            }
            if open < capacity {
                open += 1
                condition.unlock()
                do {
                    let connection = try PostgresConnection(url: url)
                    if let feed, feed.isStarted { try connection.listen(to: PostgresStandingFeed.channel) }
                    return (connection, false)
                } catch {
                    drop()
                    throw error
                }
            }
            if !condition.wait(until: deadline) {
                condition.unlock()
                throw PostgresError(
                    kind: .timeout, sqlState: nil,
                    message: "all \(capacity) database connections stayed in use for \(Int(checkoutTimeout)) s")
            }
        }
    }

    /// Returns a connection; one that is broken, or was left in a transaction that cannot be
    /// rolled back, is closed instead.
    func checkIn(_ connection: PostgresConnection) {
        var usable = !connection.isBroken
        if usable {
            usable = (try? connection.rollback()) != nil && !connection.isBroken
        }
        if let feed, connection.takeNotifications() { feed.changed() }
        condition.lock()
        if usable && !closed {
            idle.append(connection)
        } else {
            open -= 1
        }
        condition.signal()
        condition.unlock()
    }

    /// Closes the idle connections and refuses new checkouts; connections in use close when
    /// they come back.
    func close() {
        condition.lock()
        closed = true
        open -= idle.count
        let closing = idle
        idle.removeAll()
        condition.broadcast()
        condition.unlock()
        // The idle connections close here, outside the lock, as `closing` goes.
        withExtendedLifetime(closing) {}
    }

    /// Reads the notifications that idle connections received, so that none of them holds
    /// PostgreSQL's notification queue back; the listener's thread calls it every tick.
    ///
    /// Every pooled connection listens (a commit's own notification must reach the feed before
    /// the commit's caller goes on), so every change made anywhere is also sent to every idle
    /// connection. Unread, those pile up in its socket until the backend blocks writing them;
    /// a blocked backend's place in the server's shared queue stops advancing, the queue cannot
    /// be trimmed past it (`pg_notification_queue_usage()` grows), and once it is full every
    /// `NOTIFY`, a revocation's included, fails. Here one `poll` without waiting, under the
    /// lock, finds the idle connections with something to read; only those leave the pool, one
    /// at a time, for the microseconds their `PQconsumeInput` and `PQnotifies` take (at most
    /// ``drainReadsPerConnection`` reads each), and go back at once: a checkout waits for this
    /// only when every other connection is in use. A connection whose read fails (its server
    /// ended the session) is dropped; a later checkout opens a fresh one. What arrived here does
    /// not move the feed: an idle connection only ever holds other sessions' notifications,
    /// which the listener's own connection receives and reports too (and while it cannot, the
    /// feed is down and nothing is cached), so a second report would only empty the caches
    /// twice. Connections in use are never touched: each reports its own commit's notification
    /// at check-in, which keeps a revocation through this node strict.
    ///
    /// Why not `UNLISTEN` while idle and `LISTEN` again at checkout: that is two more round
    /// trips (and two takes of the server's notification lock) for every checkout, to save a
    /// `poll` per tick.
    ///
    /// - Returns: how many notifications were read.
    @discardableResult
    func drainIdleConnections() -> Int {
        guard let feed, feed.isStarted else { return 0 }
        var drained = 0
        for ready in idleConnectionsWithInput() {
            // Taken only if still idle: one checked out meanwhile is drained by its user.
            condition.lock()
            guard !closed, let index = idle.firstIndex(where: { $0 === ready }) else {
                condition.unlock()
                continue
            }
            let connection = idle.remove(at: index)
            condition.unlock()
            let (arrived, lost) = connection.drainNotifications(maximumReads: Self.drainReadsPerConnection)
            drained += arrived
            condition.lock()
            if !lost && !closed {
                idle.insert(connection, at: 0)
            } else {
                open -= 1
            }
            condition.signal()
            condition.unlock()
        }
        return drained
    }

    /// The idle connections that have something to read (or are broken), found with one `poll`
    /// that does not wait; they stay in the pool.
    private func idleConnectionsWithInput() -> [PostgresConnection] {
        condition.lock()
        defer { condition.unlock() }
        guard !closed, !idle.isEmpty else { return [] }
        var descriptors = idle.map { pollfd(fd: $0.socket ?? -1, events: Int16(POLLIN), revents: 0) }
        guard poll(&descriptors, nfds_t(descriptors.count), 0) >= 0 else { return [] }
        return zip(idle, descriptors).compactMap { connection, descriptor in
            descriptor.revents != 0 || descriptor.fd < 0 || connection.isBroken ? connection : nil
        }
    }

    /// How many idle connections have unread input or unreported notifications (tests look:
    /// after ``drainIdleConnections()`` none should).
    var idleConnectionsHoldingNotifications: Int {
        condition.lock()
        defer { condition.unlock() }
        var descriptors = idle.map { pollfd(fd: $0.socket ?? -1, events: Int16(POLLIN), revents: 0) }
        _ = poll(&descriptors, nfds_t(descriptors.count), 0)
        return zip(idle, descriptors).count { pair in pair.0.unreportedNotifications > 0 || pair.1.revents != 0 }
    }

    /// Idle connections now (tests).
    var idleConnections: Int {
        condition.lock()
        defer { condition.unlock() }
        return idle.count
    }

    /// Makes a reused `connection` listen once the feed is started (it was opened before);
    /// false when that failed and the connection is unusable. Reports what it had received.
    private func listensIfFollowing(_ connection: PostgresConnection) -> Bool {
        guard let feed else { return true }
        if connection.takeNotifications() { feed.changed() }
        guard feed.isStarted, !connection.isListening else { return true }
        return (try? connection.listen(to: PostgresStandingFeed.channel)) != nil
    }

    private func drop() {
        condition.lock()
        open -= 1
        condition.signal()
        condition.unlock()
    }
}
