import Foundation
import PorticoStore

// Dynamic client registration (migration 19).
extension SQLTransaction {
    /// ``RegistrationStorage/insertInitialAccessToken(hash:uses:expiresAt:createdAt:)``.
    @inlinable public func insertInitialAccessToken(hash: [UInt8], uses: Int?, expiresAt: Date?, createdAt: Date)
        throws
    {
        try write(
            "INSERT INTO initial_access_tokens (token_hash, uses_left, expires_at, created_at) VALUES (?, ?, ?, ?)",
            [.bytes(hash), uses.map { .int($0) } ?? .null, .date(expiresAt), .date(createdAt)])
    }

    /// ``RegistrationStorage/consumeInitialAccessToken(hash:now:)``, for every SQL backend.
    @inlinable public func consumeInitialAccessToken(hash: [UInt8], now: Date) throws -> Bool {
        try write(
            """
            UPDATE initial_access_tokens SET uses_left = uses_left - 1
            WHERE token_hash = ? AND (uses_left IS NULL OR uses_left > 0) AND (expires_at IS NULL OR expires_at > ?)
            """,
            [.bytes(hash), .date(now)]) > 0
    }

    /// ``RegistrationStorage/setRegistrationAccessToken(clientID:hash:authMethod:)``.
    @inlinable public func setRegistrationAccessToken(clientID: String, hash: [UInt8], authMethod: String) throws {
        try write(
            """
            INSERT INTO client_registrations (client_id, token_hash, auth_method) VALUES (?, ?, ?)
            ON CONFLICT (client_id) DO UPDATE SET token_hash = excluded.token_hash, auth_method = excluded.auth_method
            """,
            [.text(clientID), .bytes(hash), .text(authMethod)], referring: "client")
    }

    /// ``RegistrationStorage/registration(accessTokenHash:)``, for every SQL backend.
    @inlinable public func registration(accessTokenHash hash: [UInt8]) throws -> (
        clientID: String, authMethod: String
    )? {
        try first("SELECT client_id, auth_method FROM client_registrations WHERE token_hash = ?", [.bytes(hash)]) {
            (try $0.text("client_id"), try $0.text("auth_method"))
        }
    }

    /// ``RegistrationStorage/setClientSuspended(id:at:)``, for every SQL backend.
    @inlinable public func setClientSuspended(id: String, at time: Date?) throws -> Bool {
        try write("UPDATE clients SET suspended_at = ? WHERE id = ?", [.date(time), .text(id)]) > 0
    }

    /// ``RegistrationStorage/markClientVerified(id:)``, for every SQL backend.
    @inlinable public func markClientVerified(id: String) throws -> Bool {
        try write("UPDATE clients SET verified = ? WHERE id = ?", [.bool(true), .text(id)]) > 0
    }

    /// ``RegistrationStorage/consentCount(clientID:)``, for every SQL backend.
    @inlinable public func consentCount(clientID: String) throws -> Int {
        Int(
            try first("SELECT COUNT(*) AS n FROM consents WHERE client_id = ?", [.text(clientID)]) {
                try $0.integer("n")
            } ?? 0)
    }
}
