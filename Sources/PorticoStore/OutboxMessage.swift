import Foundation

/// A message the provider owes someone outside it (a back-channel logout token, say), kept as a
/// row so that it survives a restart and reaches its destination at least once.
///
/// Enqueued in the same transaction as the event that causes it, so the event and the duty to
/// tell commit or roll back together (the "transactional outbox"). A node delivers it after
/// claiming it (``OutboxStorage/claimOutboxMessages(now:leaseUntil:owner:limit:)``), which
/// makes it invisible to every other node until the lease ends; then it is delivered, retried
/// later, or given up as failed. What the payload means is the provider's business.
public struct OutboxMessage: Sendable, Hashable {
    /// The message's id.
    public var id: String
    /// What kind of message it is, telling the provider how to deliver ``payload``.
    public var topic: String
    /// What the provider needs to deliver it (JSON text, say); opaque to the store.
    public var payload: String
    /// When it was enqueued; the provider gives up on it some time after.
    public var createdAt: Date
    /// When it may be attempted (again): at once when new, later after a failed attempt.
    public var nextAttemptAt: Date
    /// How many attempts have failed so far.
    public var failedAttempts: Int
    /// Why the latest attempt failed, for operators.
    public var lastError: String?
    /// When it was delivered; nil until then.
    public var deliveredAt: Date?
    /// When the provider gave up on it; nil until then.
    public var failedAt: Date?

    /// Whether it still waits for delivery (neither delivered nor given up).
    public var isPending: Bool { deliveredAt == nil && failedAt == nil }

    /// A message due at once; or as stored (backends).
    public init(
        id: String = RecordIdentifier.random(), topic: String, payload: String, createdAt: Date,
        nextAttemptAt: Date? = nil, failedAttempts: Int = 0, lastError: String? = nil, deliveredAt: Date? = nil,
        failedAt: Date? = nil
    ) {
        self.id = id
        self.topic = topic
        self.payload = payload
        self.createdAt = createdAt
        self.nextAttemptAt = nextAttemptAt ?? createdAt
        self.failedAttempts = failedAttempts
        self.lastError = lastError
        self.deliveredAt = deliveredAt
        self.failedAt = failedAt
    }
}
