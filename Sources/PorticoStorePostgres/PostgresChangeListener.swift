import CLibPQ
import Foundation
import Synchronization

/// The connection that listens for `portico_standing` notifications on its own thread and
/// moves the ``PostgresStandingFeed``: one per store, started by
/// ``PostgresStore/followStandingChanges()``.
///
/// It waits in `poll` on the connection's socket (and on a pipe that ``stop()`` writes to), reads
/// what arrived with `PQconsumeInput` and counts `PQnotifies`. When the connection drops (the
/// server restarted, the backend was terminated) the feed goes down at once — nothing may be
/// cached while commits could go unreported — and the listener connects again every
/// ``retryDelayMilliseconds`` until it listens again, when the feed comes back with a new
/// generation. Its sessions are named ``applicationName`` in `pg_stat_activity`.
///
/// Every ``drainIntervalMilliseconds``, connected or not, it also reads what the pool's idle
/// connections received (``PostgresConnectionPool/drainIdleConnections()``), so that no idle
/// connection holds PostgreSQL's notification queue back.
final class PostgresChangeListener: @unchecked Sendable {
    /// The `application_name` of the listener's sessions.
    static let applicationName = "portico standing listener"
    /// How long the listener waits between attempts to connect.
    static let retryDelayMilliseconds: Int32 = 500
    /// How often the pool's idle connections are drained of notifications. At 10,000
    /// notifications a second that is at most about 32 KB per connection between drains, well
    /// within a socket's buffer, so a backend never blocks sending them.
    static let drainIntervalMilliseconds: Int32 = 100

    private let url: PostgresURL
    private let feed: PostgresStandingFeed
    /// The pool whose idle connections this thread drains.
    private let pool: PostgresConnectionPool?
    /// When the pool was last drained (only the thread uses it).
    private var drainedAt = ContinuousClock.now
    /// Whether the thread drains the pool's idle connections; tests turn it off to show what
    /// undrained ones do.
    let drainsIdleConnections = Atomic<Bool>(true)
    private let stopped = Atomic<Bool>(false)
    /// Whether the listener connects again after losing its connection; tests turn it off to
    /// hold the feed down for as long as they look.
    let reconnects = Atomic<Bool>(true)
    /// Whether the thread runs; guarded by `finished`, which signals when it ends.
    private var running = false
    private let finished = NSCondition()
    /// The pipe ``stop()`` writes to so that a waiting `poll` returns at once.
    private let wakeRead: Int32
    private let wakeWrite: Int32

    /// A listener for `url`'s database that reports to `feed` and drains `pool`'s idle
    /// connections; nothing runs before ``start()``.
    init(url: PostgresURL, feed: PostgresStandingFeed, pool: PostgresConnectionPool? = nil) {
        var listenerURL = url
        listenerURL.overrides = [("application_name", Self.applicationName)]
        self.url = listenerURL
        self.feed = feed
        self.pool = pool
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
            _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        }
        wakeRead = ends[0]
        wakeWrite = ends[1]
    }

    deinit {
        if wakeRead >= 0 { close(wakeRead) }
        if wakeWrite >= 0 { close(wakeWrite) }
    }

    /// Starts the listener's thread.
    func start() {
        finished.lock()
        running = true
        finished.unlock()
        let thread = Thread { [self] in
            run()
            finished.lock()
            running = false
            finished.broadcast()
            finished.unlock()
        }
        thread.name = "portico-standing-listener"
        thread.start()
    }

    /// Ends the thread and waits (at most a few seconds, should it be connecting) until it has
    /// closed its connection with a goodbye to the server; the feed stays down.
    func stop() {
        stopped.store(true, ordering: .releasing)
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        let deadline = Date(timeIntervalSinceNow: TimeInterval(PostgresURL.connectTimeoutSeconds + 1))
        finished.lock()
        while running && finished.wait(until: deadline) {}
        finished.unlock()
    }

    private var isStopped: Bool { stopped.load(ordering: .acquiring) }

    private func run() {
        while !isStopped {
            while !reconnects.load(ordering: .acquiring) && !isStopped {
                _ = wait(on: nil, milliseconds: Self.retryDelayMilliseconds / 10)
                drainPoolIfDue()
            }
            if let connection = try? PostgresConnection(url: url) {
                // Only a schema with the triggers (version 13) notifies; an older one is never
                // followed, and is looked at again after a while.
                if (try? connection.listen(to: PostgresStandingFeed.channel)) != nil,
                    let version = try? PostgresSchema.version(of: connection),
                    version >= PostgresSchema.standingNotificationsVersion
                {
                    feed.wentLive()
                    follow(connection)
                    feed.wentDown()
                }
            }
            if isStopped { break }
            for _ in 0..<Self.retryDelayMilliseconds / Self.drainIntervalMilliseconds where !isStopped {
                _ = wait(on: nil, milliseconds: Self.drainIntervalMilliseconds)
                drainPoolIfDue()
            }
        }
    }

    /// Drains the pool's idle connections if ``drainIntervalMilliseconds`` have passed since
    /// the last time.
    private func drainPoolIfDue() {
        guard let pool, drainsIdleConnections.load(ordering: .acquiring) else { return }
        let now = ContinuousClock.now
        guard now - drainedAt >= .milliseconds(Self.drainIntervalMilliseconds) else { return }
        drainedAt = now
        pool.drainIdleConnections()
    }

    /// Counts notifications on `connection` until it drops or the listener stops.
    private func follow(_ connection: PostgresConnection) {
        while !isStopped {
            guard let socket = connection.socket else { return }
            switch wait(on: socket, milliseconds: Self.drainIntervalMilliseconds) {
            case .stopped: return
            case .timedOut: drainPoolIfDue()
            case .readable:
                let alive = connection.consumeInput()
                if connection.takeNotifications() { feed.changed() }
                guard alive else { return }
                drainPoolIfDue()
            }
        }
    }

    private enum Wake { case readable, stopped, timedOut }

    /// Waits for `socket` to be readable (or, with nil, only for the time to pass), or for
    /// ``stop()``.
    private func wait(on socket: Int32?, milliseconds: Int32) -> Wake {
        var descriptors = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        if let socket { descriptors.append(pollfd(fd: socket, events: Int16(POLLIN), revents: 0)) }
        let ready = poll(&descriptors, nfds_t(descriptors.count), milliseconds)
        if isStopped || descriptors[0].revents != 0 { return .stopped }
        if ready > 0, descriptors.count > 1, descriptors[1].revents != 0 { return .readable }
        return .timedOut
    }
}
