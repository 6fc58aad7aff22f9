import Foundation

/// The append-only audit log.
///
/// Part of ``StoreTransaction``; see its "Implementation requirements".
public protocol AuditLogStorage {
    /// Appends an event; the log cannot be changed afterwards.
    func append(_ event: AuditEvent) throws
    /// The latest `limit` events, newest first.
    func recentAuditEvents(limit: Int) throws -> [AuditEvent]
    /// The latest `limit` events whose actor or subject is `party` (a user id: what that
    /// person did and what was done to their account), newest first. Used for a person's
    /// "Download your data"; it reads the log without an index, which is fine for a request a
    /// person makes now and then.
    func auditEvents(involving party: String, limit: Int) throws -> [AuditEvent]
}
