import Foundation

/// The append-only audit log.
///
/// Part of ``StoreTransaction``; see its "Implementation requirements".
public protocol AuditLogStorage {
    /// Appends an event; the log cannot be changed afterwards.
    func append(_ event: AuditEvent) throws
    /// The latest `limit` events, newest first.
    func recentAuditEvents(limit: Int) throws -> [AuditEvent]
}
