import Foundation

/// The durable outbox: messages owed to the outside, delivered at least once by exactly one
/// node at a time (``OutboxMessage``).
///
/// Part of ``StoreTransaction``; see its "Implementation requirements". The store offers the
/// primitives; how often to try, how long to wait between attempts and when to give up is the
/// provider's decision.
///
/// Claiming is what makes several nodes on one database safe: a claim sets a lease (owner and
/// end) on due, pending, unleased messages in one conditional statement (PostgreSQL also skips
/// rows another transaction has locked), so two nodes claiming at once never both get a message;
/// the outcome of an attempt is written only by the lease's owner. A node that dies mid-attempt
/// leaves a lease that ends, and the message becomes due for another node: at least once.
public protocol OutboxStorage {
    /// Stores a message (in the transaction of the event that causes it).
    func enqueue(_ message: OutboxMessage) throws
    /// Stores a message unless one of the same topic and payload is still waiting for its first
    /// or next attempt (pending and not leased), and says whether it stored it: that one will
    /// say the same thing when it goes out, so a burst of events owed to one recipient becomes
    /// one delivery. A message being attempted (leased) may have been sent already, so it never
    /// stands in for a new one. Two transactions enqueueing at once may both store theirs: a
    /// duplicate, never a lost message.
    @discardableResult func enqueueCoalescing(_ message: OutboxMessage) throws -> Bool
    /// Leases up to `limit` pending messages due at `now` whose lease (if any) has ended, to
    /// `owner` until `leaseUntil`, oldest due first, and returns them; none claimed twice.
    func claimOutboxMessages(now: Date, leaseUntil: Date, owner: String, limit: Int) throws -> [OutboxMessage]
    /// Marks a message delivered, conditionally on `owner` holding its lease; false otherwise.
    @discardableResult func markOutboxMessageDelivered(id: String, owner: String, now: Date) throws -> Bool
    /// Records a failed attempt and when to try again, releasing the lease, conditionally on
    /// `owner` holding it; false otherwise.
    @discardableResult func rescheduleOutboxMessage(id: String, owner: String, nextAttemptAt: Date, error: String)
        throws -> Bool
    /// Records a failed attempt and gives the message up for good, conditionally on `owner`
    /// holding its lease; false otherwise.
    @discardableResult func markOutboxMessageFailed(id: String, owner: String, now: Date, error: String) throws
        -> Bool
    /// Gives a claimed message back unattempted (its node is stopping), due at once for any
    /// node, conditionally on `owner` holding its lease; false otherwise.
    @discardableResult func releaseOutboxMessage(id: String, owner: String) throws -> Bool
    /// Gives a claimed message back unattempted, due again at `until` for any node, without
    /// counting an attempt (its recipient is busy with another message, or resting after
    /// failures), conditionally on `owner` holding its lease; false otherwise.
    @discardableResult func postponeOutboxMessage(id: String, owner: String, until: Date) throws -> Bool
    /// The message with this id, whatever its state.
    func outboxMessage(id: String) throws -> OutboxMessage?
    /// The pending messages of `topic`, oldest first (for tests and operators).
    func pendingOutboxMessages(topic: String, limit: Int) throws -> [OutboxMessage]
    /// Up to `limit` messages of `topic` the provider gave up on, the latest first, with why
    /// (for operators: what a receiver refused, say).
    func failedOutboxMessages(topic: String, limit: Int) throws -> [OutboxMessage]
    /// How many messages are pending (leased ones included).
    func pendingOutboxMessageCount() throws -> Int
    /// Deletes up to `limit` delivered or given-up messages that finished before `before`;
    /// returns how many.
    @discardableResult func deleteFinishedOutboxMessages(before: Date, limit: Int) throws -> Int
}
