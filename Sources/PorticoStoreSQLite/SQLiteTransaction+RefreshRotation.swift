import Foundation
import PorticoStore
import PorticoStoreSQL

// Refresh rotation with the reads a refresh grant needs (two statements in the transaction
// that ``Store/writeOne(_:)`` runs on SQLite).
extension SQLiteTransaction {
    /// What the rotation reads after its write, built once (it runs on every refresh grant): the
    /// family's columns, its person's, then the rows that hang off the family.
    private static let rotationRead: String = {
        let user = userColumnList.split(separator: ",").map { "u.\($0.trimmingCharacters(in: .whitespaces))" }
        return """
            SELECT f.id, f.client_id, f.user_id, f.scopes, f.auth_time, f.created_at, f.revoked_at,
                \(user.joined(separator: ", ")),
                (SELECT r.resource FROM refresh_family_resources r WHERE r.family_id = f.id),
                (SELECT m.methods FROM refresh_family_methods m WHERE m.family_id = f.id),
                (SELECT s.sid FROM session_families s WHERE s.family_id = f.id),
                f.device_session_id
            FROM refresh_families AS f JOIN users AS u ON u.id = f.user_id
            WHERE f.id = ?
            """
    }()

    func rotateRefreshToken(
        familyID: String, from expected: [UInt8], to successor: [UInt8], clientID: String, now: Date,
        expiresAt: Date
    ) throws -> RefreshRotationRecord? {
        // The whole condition is in the WHERE, so the write is the compare-and-swap; the read
        // that follows sees this transaction's own write.
        let changed = try write(
            """
            UPDATE refresh_families SET previous_token_hash = token_hash, rotated_at = ?, token_hash = ?,
                token_issued_at = ?, token_expires_at = ?
            WHERE id = ? AND token_hash = ? AND revoked_at IS NULL AND token_expires_at > ? AND client_id = ?
                AND EXISTS (SELECT 1 FROM users AS u WHERE u.id = refresh_families.user_id AND NOT u.disabled)
            """,
            [
                .date(now), .bytes(successor), .date(now), .date(expiresAt), .text(familyID), .bytes(expected),
                .date(now), .text(clientID),
            ])
        guard changed > 0 else { return nil }
        return try first(
            Self.rotationRead,
            [.text(familyID)]
        ) { row in
            RefreshRotationRecord(
                family: RefreshFamily(
                    id: row.text(0), clientID: row.text(1), userID: row.text(2), scopes: try row.list(3),
                    authTime: row.date(4), createdAt: row.date(5), revokedAt: row.optionalDate(6)),
                user: UserRecord(
                    id: row.text(7), email: row.text(8), name: row.text(9), postalCode: row.optionalText(10),
                    passwordHash: row.text(11), isDisabled: row.bool(12), isEmailVerified: row.bool(15),
                    createdAt: row.date(13), updatedAt: row.date(14)),
                resource: row.optionalText(16),
                authenticationMethods: row.optionalText(17).map { $0.split(separator: " ").map(String.init) },
                sessionID: row.optionalText(18), deviceSessionID: row.optionalText(19))
        }
    }
}
