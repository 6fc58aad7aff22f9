import CLibPQ
import Foundation
import PorticoStore

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
