import Foundation
import PorticoStore

// Password-reset links and throttled attempts (migration 3).
@usableFromInline let resetColumns = "token_hash, user_id, created_at, expires_at, used_at"

extension SQLTransaction {
    // MARK: Password resets

    @usableFromInline static func decodeReset(_ row: Row) throws -> PasswordReset {
        PasswordReset(
            hashedToken: try row.hashReference("token_hash"), userID: try row.text("user_id"),
            createdAt: try row.date("created_at"), expiresAt: try row.date("expires_at"),
            usedAt: try row.optionalDate("used_at"))
    }

    /// ``PasswordResetStorage/insert(_:)``, for every SQL backend.
    @inlinable public func insert(_ reset: PasswordReset) throws {
        try write(
            "INSERT INTO password_resets (\(resetColumns)) VALUES (?, ?, ?, ?, ?)",
            [
                .hash(reference: reset.hashedToken), .text(reset.userID), .date(reset.createdAt),
                .date(reset.expiresAt), .date(reset.usedAt),
            ], referring: "user")
    }

    /// ``PasswordResetStorage/passwordReset(token:)``, for every SQL backend.
    @inlinable public func passwordReset(token: String) throws -> PasswordReset? {
        try first(
            "SELECT \(resetColumns) FROM password_resets WHERE token_hash = ?", [.digest(token)],
            Self.decodeReset)
    }

    /// ``PasswordResetStorage/redeemPasswordReset(token:now:)``, for every SQL backend.
    @inlinable public func redeemPasswordReset(token: String, now: Date) throws -> PasswordResetRedemption {
        let hash = SecretHash.digest(token)
        guard
            var stored = try first(
                "SELECT \(resetColumns) FROM password_resets WHERE token_hash = ?", [.bytes(hash)],
                Self.decodeReset)
        else { return .notFound }
        if stored.usedAt != nil { return .alreadyUsed }
        if StoredTime.isExpired(stored.expiresAt, now: now) { return .expired }
        let changed = try write(
            "UPDATE password_resets SET used_at = ? WHERE token_hash = ? AND used_at IS NULL",
            [.date(now), .bytes(hash)])
        if changed == 0 { return .alreadyUsed }
        stored.usedAt = StoredTime.stored(now)
        return .redeemed(stored)
    }

    /// ``PasswordResetStorage/deletePasswordResets(userID:)``, for every SQL backend.
    @inlinable public func deletePasswordResets(userID: String) throws -> Int {
        try write("DELETE FROM password_resets WHERE user_id = ?", [.text(userID)])
    }

    // MARK: Throttled attempts

    /// ``ThrottleStorage/insert(_:)``, for every SQL backend.
    @inlinable public func insert(_ attempt: ThrottleAttempt) throws {
        try write(
            "INSERT INTO throttle_attempts (id, key_hash, attempted_at, expires_at) VALUES (?, ?, ?, ?)",
            [.text(attempt.id), .digest(attempt.key), .date(attempt.attemptedAt), .date(attempt.expiresAt)])
    }

    /// ``ThrottleStorage/lockThrottleKey(_:)``, for every SQL backend (a no-op where the
    /// dialect has no key lock).
    @inlinable public func lockThrottleKey(_ key: String) throws {
        guard !dialect.keyLock.isEmpty else { return }
        _ = try first(dialect.keyLock, [.digest(key)]) { try $0.int("held") }
    }

    /// ``ThrottleStorage/throttleAttempts(key:since:)``, for every SQL backend.
    @inlinable public func throttleAttempts(key: String, since: Date) throws -> [Date] {
        try all(
            "SELECT attempted_at FROM throttle_attempts WHERE key_hash = ? AND attempted_at > ? ORDER BY attempted_at",
            [.digest(key), .date(since)]
        ) { try $0.date("attempted_at") }
    }

    /// ``ThrottleStorage/deleteThrottleAttempt(id:)``, for every SQL backend.
    @inlinable public func deleteThrottleAttempt(id: String) throws -> Bool {
        try write("DELETE FROM throttle_attempts WHERE id = ?", [.text(id)]) > 0
    }

    /// ``ThrottleStorage/deleteThrottleAttempts(key:)``, for every SQL backend.
    @inlinable public func deleteThrottleAttempts(key: String) throws -> Int {
        try write("DELETE FROM throttle_attempts WHERE key_hash = ?", [.digest(key)])
    }
}
