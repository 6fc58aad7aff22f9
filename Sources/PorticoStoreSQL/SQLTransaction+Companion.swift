import Foundation
import PorticoStore

// Companion clients, sessions and tickets.
@usableFromInline let companionSessionColumns = "s.id, s.family_id, s.user_id, s.client_id, s.host_name, s.created_at"

extension SQLTransaction {
    /// ``CompanionStorage/markCompanionClient(id:at:)``, for every SQL backend.
    @inlinable public func markCompanionClient(id clientID: String, at now: Date) throws {
        try write(
            "INSERT INTO companion_clients (client_id, created_at) VALUES (?, ?) ON CONFLICT (client_id) DO NOTHING",
            [.text(clientID), .date(now)], referring: "client")
    }

    /// ``CompanionStorage/isCompanionClient(id:)``, for every SQL backend.
    @inlinable public func isCompanionClient(id clientID: String) throws -> Bool {
        try first("SELECT 1 FROM companion_clients WHERE client_id = ?", [.text(clientID)]) { _ in true } ?? false
    }

    /// ``CompanionStorage/companionClientIDs()``, for every SQL backend.
    @inlinable public func companionClientIDs() throws -> Set<String> {
        Set(try all("SELECT client_id FROM companion_clients", []) { try $0.text("client_id") })
    }

    @usableFromInline static func decodeCompanionSession(_ row: Row) throws -> CompanionSession {
        CompanionSession(
            id: try row.text("id"), familyID: try row.text("family_id"), userID: try row.text("user_id"),
            clientID: try row.text("client_id"), hostName: try row.optionalText("host_name"),
            createdAt: try row.date("created_at"))
    }

    /// ``CompanionStorage/insert(_:)``, for every SQL backend.
    @inlinable public func insert(_ session: CompanionSession) throws {
        try write(
            """
            INSERT INTO companion_sessions (id, family_id, user_id, client_id, host_name, created_at)
            VALUES (?, ?, ?, ?, ?, ?)
            """,
            [
                .text(session.id), .text(session.familyID), .text(session.userID), .text(session.clientID),
                .text(session.hostName), .date(session.createdAt),
            ], referring: "refresh family, user or client")
    }

    /// ``CompanionStorage/companionSession(id:)``, for every SQL backend.
    @inlinable public func companionSession(id: String) throws -> CompanionSession? {
        try first(
            "SELECT \(companionSessionColumns) FROM companion_sessions s WHERE s.id = ?", [.text(id)],
            Self.decodeCompanionSession)
    }

    /// ``CompanionStorage/companionSession(familyID:)``, for every SQL backend.
    @inlinable public func companionSession(familyID: String) throws -> CompanionSession? {
        try first(
            "SELECT \(companionSessionColumns) FROM companion_sessions s WHERE s.family_id = ?",
            [.text(familyID)], Self.decodeCompanionSession)
    }

    /// ``CompanionStorage/liveCompanionSessions(userID:now:)``, for every SQL backend.
    @inlinable public func liveCompanionSessions(userID: String, now: Date) throws -> [CompanionSession] {
        try all(
            """
            SELECT \(companionSessionColumns) FROM companion_sessions s
            JOIN refresh_families f ON f.id = s.family_id
            WHERE s.user_id = ? AND f.revoked_at IS NULL AND f.token_expires_at > ? ORDER BY s.created_at DESC, s.id
            """,
            [.text(userID), .date(now)], Self.decodeCompanionSession)
    }

    /// ``CompanionStorage/insert(_:)``, for every SQL backend.
    @inlinable public func insert(_ ticket: CompanionTicket) throws {
        try write(
            """
            INSERT INTO companion_tickets (ticket_hash, session_id, kind, request, created_at, expires_at, consumed_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .hash(reference: ticket.hashedTicket), .text(ticket.sessionID), .text(ticket.kind),
                .text(ticket.request), .date(ticket.createdAt), .date(ticket.expiresAt), .date(ticket.consumedAt),
            ], referring: "companion session")
    }

    /// ``CompanionStorage/consumeCompanionTicket(_:sessionID:now:)``, for every SQL backend.
    @inlinable public func consumeCompanionTicket(_ ticket: String, sessionID: String, now: Date) throws
        -> CompanionTicket?
    {
        let hash = SQLValue.digest(ticket)
        let changed = try write(
            """
            UPDATE companion_tickets SET consumed_at = ?
            WHERE ticket_hash = ? AND session_id = ? AND consumed_at IS NULL AND expires_at > ?
            """,
            [.date(now), hash, .text(sessionID), .date(now)])
        guard changed == 1 else { return nil }
        return try first(
            """
            SELECT ticket_hash, session_id, kind, request, created_at, expires_at, consumed_at
            FROM companion_tickets WHERE ticket_hash = ?
            """,
            [hash]
        ) { row in
            CompanionTicket(
                hashedTicket: try row.hashReference("ticket_hash"), sessionID: try row.text("session_id"),
                kind: try row.text("kind"), request: try row.text("request"), createdAt: try row.date("created_at"),
                expiresAt: try row.date("expires_at"), consumedAt: try row.optionalDate("consumed_at"))
        }
    }
}
