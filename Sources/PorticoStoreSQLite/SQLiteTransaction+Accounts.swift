import Foundation
import PorticoStore
import PorticoStoreSQL

// Password-reset links and throttled attempts (migration 3).
extension SQLiteTransaction {
    // MARK: Password resets

    private static let resetColumns = "token_hash, user_id, created_at, expires_at, used_at"

    private static func decodeReset(_ row: SQLiteRow) -> PasswordReset {
        PasswordReset(
            hashedToken: row.hashReference(0), userID: row.text(1), createdAt: row.date(2), expiresAt: row.date(3),
            usedAt: row.optionalDate(4))
    }

    func insert(_ reset: PasswordReset) throws {
        try write(
            "INSERT INTO password_resets (\(Self.resetColumns)) VALUES (?, ?, ?, ?, ?)",
            [
                .hash(reference: reset.hashedToken), .text(reset.userID), .date(reset.createdAt),
                .date(reset.expiresAt), .date(reset.usedAt),
            ], referring: "user")
    }

    func passwordReset(token: String) throws -> PasswordReset? {
        try first(
            "SELECT \(Self.resetColumns) FROM password_resets WHERE token_hash = ?", [.bytes(SecretHash.digest(token))],
            Self.decodeReset)
    }

    func redeemPasswordReset(token: String, now: Date) throws -> PasswordResetRedemption {
        let hash = SecretHash.digest(token)
        guard
            var stored = try first(
                "SELECT \(Self.resetColumns) FROM password_resets WHERE token_hash = ?", [.bytes(hash)],
                Self.decodeReset)
        else { return .notFound }
        if stored.usedAt != nil { return .alreadyUsed }
        if StoredTime.isExpired(stored.expiresAt, now: now) { return .expired }
        let changed = try write(
            "UPDATE password_resets SET used_at = ? WHERE token_hash = ? AND used_at IS NULL",
            [.date(now), .bytes(hash)])
        if changed == 0 { return .alreadyUsed }
        stored.usedAt = Date(timeIntervalSince1970: TimeInterval(StoredTime.seconds(now)))
        return .redeemed(stored)
    }

    func deletePasswordResets(userID: String) throws -> Int {
        try write("DELETE FROM password_resets WHERE user_id = ?", [.text(userID)])
    }

    // MARK: Throttled attempts

    func insert(_ attempt: ThrottleAttempt) throws {
        try write(
            "INSERT INTO throttle_attempts (id, key_hash, attempted_at, expires_at) VALUES (?, ?, ?, ?)",
            [
                .text(attempt.id), .bytes(SecretHash.digest(attempt.key)), .date(attempt.attemptedAt),
                .date(attempt.expiresAt),
            ])
    }

    func throttleAttempts(key: String, since: Date) throws -> [Date] {
        try all(
            "SELECT attempted_at FROM throttle_attempts WHERE key_hash = ? AND attempted_at > ? ORDER BY attempted_at",
            [.bytes(SecretHash.digest(key)), .date(since)]
        ) { $0.date(0) }
    }

    func deleteThrottleAttempt(id: String) throws -> Bool {
        try write("DELETE FROM throttle_attempts WHERE id = ?", [.text(id)]) > 0
    }

    func deleteThrottleAttempts(key: String) throws -> Int {
        try write("DELETE FROM throttle_attempts WHERE key_hash = ?", [.bytes(SecretHash.digest(key))])
    }
}
