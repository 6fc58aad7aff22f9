import Foundation

/// One line of the append-only audit log: who did what to whom, and when.
///
/// The store offers no way to change or delete events (and the SQLite schema refuses it), so
/// the log can be trusted as a record of admin and security actions.
public struct AuditEvent: Sendable, Hashable {
    /// The event's identifier.
    public var id: String
    /// When it happened.
    public var occurredAt: Date
    /// Who acted: a user id, a client id, `cli` or `system`.
    public var actor: String
    /// What was done, as a dotted verb (`client.add`, `refresh.reuse_detected`).
    public var action: String
    /// What it was done to.
    public var subject: String
    /// Further details as JSON text (`{}` when none).
    public var details: String

    /// An event ready to append.
    public init(
        id: String = RecordIdentifier.timeOrdered(), occurredAt: Date = Date(), actor: String, action: String,
        subject: String, details: String = "{}"
    ) {
        self.id = id
        self.occurredAt = occurredAt
        self.actor = actor
        self.action = action
        self.subject = subject
        self.details = details
    }
}
