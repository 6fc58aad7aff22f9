import Foundation
import PorticoStore
import Testing

@testable import PorticoStorePostgres

/// Idle pooled connections listen for `portico_standing` too (a commit's own notification must
/// reach the feed at check-in), so every change reaches them as well; the listener's thread
/// drains them, or they would hold PostgreSQL's shared notification queue back until a
/// `NOTIFY` (a revocation) fails for a full queue.
@Suite(TestServer.required, .serialized) struct IdleConnectionDrainTests {
    /// Notifications sent, far more than the socket buffers of one idle connection hold (each
    /// is about 32 bytes on the wire): undrained, its backend blocks writing to it.
    private static let notifications = 400_000
    private static let poolSize = 4

    /// A following store on a fresh database whose whole pool is open, listening and idle.
    private func followingStoreWithIdlePool(_ database: TemporaryDatabase) async throws -> PostgresStore {
        let store = try database.store(poolSize: Self.poolSize)
        store.followStandingChanges()
        try await poll("the feed listens") { store.standingGeneration != nil }
        let connections = try (0..<Self.poolSize).map { _ in try store.pool.checkOut().connection }
        #expect(connections.allSatisfy { $0.isListening })
        for connection in connections { store.pool.checkIn(connection) }
        #expect(store.pool.idleConnections == Self.poolSize)
        return store
    }

    /// Sends the notifications from a connection of the test's own, as other nodes' revocations
    /// would arrive, in commits of 50,000 with distinct payloads (one commit folds duplicates).
    private func notifyMany(_ database: TemporaryDatabase) throws {
        let sender = try database.connection()
        let batch = 50_000
        for start in stride(from: 0, to: Self.notifications, by: batch) {
            try sender.execute(
                "DO $$ BEGIN PERFORM pg_notify('\(PostgresStandingFeed.channel)', n::text) "
                    + "FROM generate_series(\(start + 1), \(start + batch)) AS n; END $$")
        }
    }

    /// The server's whole notification queue in use, as a fraction (0 when every listener has
    /// read everything).
    private func queueUsage(_ admin: PostgresConnection) throws -> Double {
        try #require(Double(try admin.scalar("SELECT pg_notification_queue_usage()") ?? ""))
    }

    @Test func idleConnectionsDoNotHoldTheNotificationQueueBack() async throws {
        let database = try TemporaryDatabase()
        let store = try await followingStoreWithIdlePool(database)
        defer { store.close() }
        let admin = try database.connection()
        let before = try #require(store.standingGeneration)

        try notifyMany(database)

        try await poll("the notification queue is read to its end", timeout: .seconds(60)) {
            try queueUsage(admin) == 0 && store.pool.idleConnections == Self.poolSize
                && store.pool.idleConnectionsHoldingNotifications == 0
        }
        #expect(try #require(store.standingGeneration) > before)
        // They are still the same listening connections, and still usable.
        #expect(store.pool.openConnections == Self.poolSize)
        #expect(try store.withTransaction { try $0.scalar("SELECT 1") } == "1")
    }

    @Test func undrainedIdleConnectionsWouldHoldTheQueueBack() async throws {
        // What the drain prevents, shown with it off: the queue stays in use while the idle
        // connections sit on what they were sent; a checkout of each reads it, and it empties.
        let database = try TemporaryDatabase()
        let store = try await followingStoreWithIdlePool(database)
        defer { store.close() }
        store.listener.drainsIdleConnections.store(false, ordering: .releasing)
        let admin = try database.connection()

        try notifyMany(database)

        try await poll("the idle connections hold notifications") {
            store.pool.idleConnectionsHoldingNotifications == Self.poolSize
        }
        #expect(try queueUsage(admin) > 0)
        store.listener.drainsIdleConnections.store(true, ordering: .releasing)
        try await poll("the notification queue is read to its end", timeout: .seconds(60)) {
            try queueUsage(admin) == 0 && store.pool.idleConnectionsHoldingNotifications == 0
        }
    }

    @Test func anIdleConnectionWhoseServerEndedIsDroppedByTheDrain() async throws {
        let database = try TemporaryDatabase()
        let store = try await followingStoreWithIdlePool(database)
        defer { store.close() }
        let admin = try database.connection()
        let ended = try admin.scalar(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                + "WHERE datname = $1 AND application_name = 'portico' AND pid <> pg_backend_pid()",
            [.text(database.name)])
        #expect(ended == String(Self.poolSize))
        // No checkout happens: the drain alone notices the goodbyes and closes them.
        try await poll("the ended connections are dropped") { store.pool.openConnections == 0 }
        #expect(try store.withTransaction { try $0.scalar("SELECT 1") } == "1")
        #expect(try store.withTransaction { $0.isListening })
    }

    /// Checks `condition` every 20 ms until it holds; fails naming `what` after `timeout`.
    private func poll(_ what: String, timeout: Duration = .seconds(30), _ condition: () throws -> Bool)
        async throws
    {
        let deadline = ContinuousClock.now + timeout
        while try !condition() {
            try #require(ContinuousClock.now < deadline, "timed out waiting until \(what)")
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
