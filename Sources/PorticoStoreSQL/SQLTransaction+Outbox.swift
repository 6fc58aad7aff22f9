import Foundation
import PorticoStore

// The durable outbox and the refresh families of browser sessions (back-channel logout).
@usableFromInline let outboxColumns = """
    id, topic, payload, created_at, next_attempt_at, failed_attempts, last_error, delivered_at, failed_at
    """

/// Due, pending and not leased to anyone at `?` (bound twice: due, lease ended).
@usableFromInline let claimable = """
    delivered_at IS NULL AND failed_at IS NULL AND next_attempt_at <= ?
        AND (lease_until IS NULL OR lease_until <= ?)
    """

extension SQLTransaction {
    // MARK: Outbox

    @usableFromInline static func decodeOutboxMessage(_ row: Row) throws -> OutboxMessage {
        OutboxMessage(
            id: try row.text("id"), topic: try row.text("topic"), payload: try row.text("payload"),
            createdAt: try row.date("created_at"), nextAttemptAt: try row.date("next_attempt_at"),
            failedAttempts: try row.int("failed_attempts"), lastError: try row.optionalText("last_error"),
            deliveredAt: try row.optionalDate("delivered_at"), failedAt: try row.optionalDate("failed_at"))
    }

    /// ``OutboxStorage/enqueue(_:)``, for every SQL backend.
    @inlinable public func enqueue(_ message: OutboxMessage) throws {
        try write(
            "INSERT INTO outbox_messages (\(outboxColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                .text(message.id), .text(message.topic), .text(message.payload), .date(message.createdAt),
                .date(message.nextAttemptAt), .int(message.failedAttempts), .text(message.lastError),
                .date(message.deliveredAt), .date(message.failedAt),
            ])
    }

    /// ``OutboxStorage/enqueueCoalescing(_:)``, for every SQL backend.
    @inlinable public func enqueueCoalescing(_ message: OutboxMessage) throws -> Bool {
        let waiting = try first(
            """
            SELECT 1 FROM outbox_messages
            WHERE topic = ? AND payload = ? AND delivered_at IS NULL AND failed_at IS NULL AND lease_owner IS NULL
            LIMIT 1
            """,
            [.text(message.topic), .text(message.payload)]
        ) { _ in true }
        if waiting == true { return false }
        try enqueue(message)
        return true
    }

    /// ``OutboxStorage/claimOutboxMessages(now:leaseUntil:owner:limit:)``, for every SQL backend.
    @inlinable public func claimOutboxMessages(now: Date, leaseUntil: Date, owner: String, limit: Int) throws
        -> [OutboxMessage]
    {
        // One statement. On SQLite, the writer's BEGIN IMMEDIATE lets no other transaction run
        // between choosing the rows and leasing them. On PostgreSQL, rows another node's claim has
        // locked are skipped rather than waited for (the dialect's claim lock), and the outer
        // WHERE is re-checked against a row another claim committed meanwhile (READ COMMITTED).
        // Either way, of two racing claims exactly one leases each message. The choice is a CTE,
        // which runs once: as an `IN (subquery)` PostgreSQL's planner may run the subquery again
        // per row, and with SKIP LOCKED each run chose other rows, so a claim took more than
        // `limit`.
        let claimed = try all(
            """
            WITH chosen AS (
                SELECT id AS chosen_id FROM outbox_messages WHERE \(claimable)
                ORDER BY next_attempt_at, id LIMIT ?\(dialect.claimLock))
            UPDATE outbox_messages SET lease_owner = ?, lease_until = ?
            FROM chosen WHERE id = chosen_id AND \(claimable)
            RETURNING \(outboxColumns)
            """,
            [
                .date(now), .date(now), .int(max(0, limit)), .text(owner), .date(leaseUntil), .date(now),
                .date(now),
            ], Self.decodeOutboxMessage)
        return claimed.sorted { ($0.nextAttemptAt, $0.id) < ($1.nextAttemptAt, $1.id) }
    }

    /// ``OutboxStorage/markOutboxMessageDelivered(id:owner:now:)``, for every SQL backend.
    @inlinable public func markOutboxMessageDelivered(id: String, owner: String, now: Date) throws -> Bool {
        try write(
            """
            UPDATE outbox_messages SET delivered_at = ?, lease_owner = NULL, lease_until = NULL
            WHERE id = ? AND lease_owner = ? AND delivered_at IS NULL AND failed_at IS NULL
            """,
            [.date(now), .text(id), .text(owner)]) > 0
    }

    /// ``OutboxStorage/rescheduleOutboxMessage(id:owner:nextAttemptAt:error:)``, for every SQL backend.
    @inlinable public func rescheduleOutboxMessage(id: String, owner: String, nextAttemptAt: Date, error: String) throws
        -> Bool
    {
        try write(
            """
            UPDATE outbox_messages SET next_attempt_at = ?, failed_attempts = failed_attempts + 1, last_error = ?,
                lease_owner = NULL, lease_until = NULL
            WHERE id = ? AND lease_owner = ? AND delivered_at IS NULL AND failed_at IS NULL
            """,
            [.date(nextAttemptAt), .text(error), .text(id), .text(owner)]) > 0
    }

    /// ``OutboxStorage/markOutboxMessageFailed(id:owner:now:error:)``, for every SQL backend.
    @inlinable public func markOutboxMessageFailed(id: String, owner: String, now: Date, error: String) throws -> Bool {
        try write(
            """
            UPDATE outbox_messages SET failed_at = ?, failed_attempts = failed_attempts + 1, last_error = ?,
                lease_owner = NULL, lease_until = NULL
            WHERE id = ? AND lease_owner = ? AND delivered_at IS NULL AND failed_at IS NULL
            """,
            [.date(now), .text(error), .text(id), .text(owner)]) > 0
    }

    /// ``OutboxStorage/releaseOutboxMessage(id:owner:)``, for every SQL backend.
    @inlinable public func releaseOutboxMessage(id: String, owner: String) throws -> Bool {
        try write(
            """
            UPDATE outbox_messages SET lease_owner = NULL, lease_until = NULL
            WHERE id = ? AND lease_owner = ? AND delivered_at IS NULL AND failed_at IS NULL
            """,
            [.text(id), .text(owner)]) > 0
    }

    /// ``OutboxStorage/postponeOutboxMessage(id:owner:until:)``, for every SQL backend.
    @inlinable public func postponeOutboxMessage(id: String, owner: String, until: Date) throws -> Bool {
        try write(
            """
            UPDATE outbox_messages SET next_attempt_at = ?, lease_owner = NULL, lease_until = NULL
            WHERE id = ? AND lease_owner = ? AND delivered_at IS NULL AND failed_at IS NULL
            """,
            [.date(until), .text(id), .text(owner)]) > 0
    }

    /// ``OutboxStorage/outboxMessage(id:)``, for every SQL backend.
    @inlinable public func outboxMessage(id: String) throws -> OutboxMessage? {
        try first(
            "SELECT \(outboxColumns) FROM outbox_messages WHERE id = ?", [.text(id)], Self.decodeOutboxMessage)
    }

    /// ``OutboxStorage/pendingOutboxMessages(topic:limit:)``, for every SQL backend.
    @inlinable public func pendingOutboxMessages(topic: String, limit: Int) throws -> [OutboxMessage] {
        try all(
            """
            SELECT \(outboxColumns) FROM outbox_messages
            WHERE topic = ? AND delivered_at IS NULL AND failed_at IS NULL ORDER BY created_at, id LIMIT ?
            """,
            [.text(topic), .int(max(0, limit))], Self.decodeOutboxMessage)
    }

    /// ``OutboxStorage/failedOutboxMessages(topic:limit:)``, for every SQL backend.
    @inlinable public func failedOutboxMessages(topic: String, limit: Int) throws -> [OutboxMessage] {
        try all(
            """
            SELECT \(outboxColumns) FROM outbox_messages
            WHERE topic = ? AND failed_at IS NOT NULL ORDER BY failed_at DESC, id DESC LIMIT ?
            """,
            [.text(topic), .int(max(0, limit))], Self.decodeOutboxMessage)
    }

    /// ``OutboxStorage/pendingOutboxMessageCount()``, for every SQL backend.
    @inlinable public func pendingOutboxMessageCount() throws -> Int {
        try first(
            "SELECT count(*) AS pending FROM outbox_messages WHERE delivered_at IS NULL AND failed_at IS NULL", []
        ) { try $0.int("pending") } ?? 0
    }

    /// ``OutboxStorage/deleteFinishedOutboxMessages(before:limit:)``, for every SQL backend.
    @inlinable public func deleteFinishedOutboxMessages(before: Date, limit: Int) throws -> Int {
        try write(
            """
            DELETE FROM outbox_messages WHERE id IN (
                SELECT id FROM outbox_messages
                WHERE (delivered_at IS NOT NULL OR failed_at IS NOT NULL) AND coalesce(delivered_at, failed_at) < ?
                LIMIT ?)
            """,
            [.date(before), .int(max(0, limit))])
    }

    // MARK: Refresh families of browser sessions

    /// ``SessionFamilyStorage/linkRefreshFamily(_:toBrowserSession:sessionID:)``, for every SQL backend.
    @inlinable public func linkRefreshFamily(_ familyID: String, toBrowserSession hashedID: String, sessionID: String)
        throws
    {
        try write(
            """
            INSERT INTO session_families (family_id, browser_session_hash, sid) VALUES (?, ?, ?)
            ON CONFLICT (family_id) DO NOTHING
            """,
            [.text(familyID), .hash(reference: hashedID), .text(sessionID)], referring: "refresh family")
    }

    /// ``SessionFamilyStorage/sessionID(refreshFamilyID:)``, for every SQL backend.
    @inlinable public func sessionID(refreshFamilyID familyID: String) throws -> String? {
        try first("SELECT sid FROM session_families WHERE family_id = ?", [.text(familyID)]) {
            try $0.text("sid")
        }
    }

    /// ``SessionFamilyStorage/sessionFamilies(browserSessionHashedID:)``, for every SQL backend.
    @inlinable public func sessionFamilies(browserSessionHashedID hashedID: String) throws -> [SessionFamily] {
        try all(
            """
            SELECT f.id, f.client_id, f.user_id, s.sid FROM session_families s
            JOIN refresh_families f ON f.id = s.family_id
            WHERE s.browser_session_hash = ? ORDER BY f.created_at, f.id
            """,
            [.hash(reference: hashedID)]
        ) { row in
            SessionFamily(
                familyID: try row.text("id"), clientID: try row.text("client_id"), userID: try row.text("user_id"),
                sessionID: try row.text("sid"))
        }
    }
}
