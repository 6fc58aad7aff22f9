import Foundation
import PorticoStore

// Account links and the audit log.
@usableFromInline let linkColumns = "host_client_id, host_user_id, platform_user_id, created_at, id"

extension SQLTransaction {
    // MARK: Account links

    @usableFromInline static func decodeLink(_ row: Row) throws -> AccountLink {
        AccountLink(
            id: try row.text("id"), hostClientID: try row.text("host_client_id"),
            hostUserID: try row.text("host_user_id"), platformUserID: try row.text("platform_user_id"),
            createdAt: try row.date("created_at"))
    }

    /// ``AccountLinkStorage/insert(_:)``, for every SQL backend.
    @inlinable public func insert(_ link: AccountLink) throws {
        try write(
            """
            INSERT INTO account_links (host_client_id, host_user_id, platform_user_id, created_at, id)
            VALUES (?, ?, ?, ?, ?)
            """,
            [
                .text(link.hostClientID), .text(link.hostUserID), .text(link.platformUserID), .date(link.createdAt),
                .text(link.id),
            ],
            referring: "client or user")
    }

    /// ``AccountLinkStorage/accountLink(hostClientID:hostUserID:)``, for every SQL backend.
    @inlinable public func accountLink(hostClientID: String, hostUserID: String) throws -> AccountLink? {
        try first(
            """
            SELECT \(linkColumns) FROM account_links
            WHERE host_client_id = ? AND host_user_id = ?
            """,
            [.text(hostClientID), .text(hostUserID)], Self.decodeLink)
    }

    /// ``AccountLinkStorage/accountLinks(platformUserID:)``, for every SQL backend.
    @inlinable public func accountLinks(platformUserID: String) throws -> [AccountLink] {
        try all(
            """
            SELECT \(linkColumns) FROM account_links
            WHERE platform_user_id = ? ORDER BY created_at, host_client_id
            """,
            [.text(platformUserID)], Self.decodeLink)
    }

    /// ``AccountLinkStorage/deleteAccountLink(hostClientID:hostUserID:)``, for every SQL backend.
    @inlinable public func deleteAccountLink(hostClientID: String, hostUserID: String) throws -> Bool {
        try write(
            "DELETE FROM account_links WHERE host_client_id = ? AND host_user_id = ?",
            [.text(hostClientID), .text(hostUserID)]) > 0
    }

    /// ``AccountLinkStorage/accountLink(id:)``, for every SQL backend.
    @inlinable public func accountLink(id: String) throws -> AccountLink? {
        try first("SELECT \(linkColumns) FROM account_links WHERE id = ?", [.text(id)], Self.decodeLink)
    }

    /// ``AccountLinkStorage/accountLink(hostClientID:platformUserID:)``, for every SQL backend.
    @inlinable public func accountLink(hostClientID: String, platformUserID: String) throws -> AccountLink? {
        try first(
            "SELECT \(linkColumns) FROM account_links WHERE host_client_id = ? AND platform_user_id = ?",
            [.text(hostClientID), .text(platformUserID)], Self.decodeLink)
    }

    /// ``AccountLinkStorage/deleteAccountLink(id:)``, for every SQL backend.
    @inlinable public func deleteAccountLink(id: String) throws -> Bool {
        try write("DELETE FROM account_links WHERE id = ?", [.text(id)]) > 0
    }

    // MARK: Audit log

    /// ``AuditLogStorage/append(_:)``, for every SQL backend.
    @inlinable public func append(_ event: AuditEvent) throws {
        try write(
            "INSERT INTO audit_log (id, occurred_at, actor, action, subject, details) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .text(event.id), .date(event.occurredAt), .text(event.actor), .text(event.action),
                .text(event.subject), .text(event.details),
            ])
    }

    /// ``AuditLogStorage/auditEvents(involving:limit:)``, for every SQL backend.
    @inlinable public func auditEvents(involving party: String, limit: Int) throws -> [AuditEvent] {
        try all(
            """
            SELECT id, occurred_at, actor, action, subject, details FROM audit_log
            WHERE actor = ? OR subject = ? ORDER BY sequence DESC LIMIT ?
            """,
            [.text(party), .text(party), .int(max(0, limit))]
        ) { row in
            AuditEvent(
                id: try row.text("id"), occurredAt: try row.date("occurred_at"), actor: try row.text("actor"),
                action: try row.text("action"), subject: try row.text("subject"), details: try row.text("details"))
        }
    }

    /// ``AuditLogStorage/recentAuditEvents(limit:)``, for every SQL backend.
    @inlinable public func recentAuditEvents(limit: Int) throws -> [AuditEvent] {
        try all(
            """
            SELECT id, occurred_at, actor, action, subject, details FROM audit_log
            ORDER BY sequence DESC LIMIT ?
            """,
            [.int(max(0, limit))]
        ) { row in
            AuditEvent(
                id: try row.text("id"), occurredAt: try row.date("occurred_at"), actor: try row.text("actor"),
                action: try row.text("action"), subject: try row.text("subject"), details: try row.text("details"))
        }
    }
}
