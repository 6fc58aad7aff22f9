import Foundation
import PorticoStore
import PorticoStoreSQL

// Refresh rotation with the reads a refresh grant needs, in one statement.
extension PostgresTransaction {
    /// The statement, built once: the family's columns (as `f`), the user's (as `u`), then the
    /// rows that hang off the family, one scalar subquery each (each looked up by its primary
    /// key). One UPDATE whose WHERE is the whole condition: a second rotation of one token waits
    /// for the first's row lock, then re-checks `token_hash` against the row the first left and
    /// writes nothing (as the two-step rotation does). The person is joined, not locked: a
    /// disabling committed before this statement began stops it.
    private static let rotation: String = {
        let user = userColumnList.split(separator: ",").map { "u.\($0.trimmingCharacters(in: .whitespaces))" }
        return """
            UPDATE refresh_families AS f SET previous_token_hash = f.token_hash, rotated_at = $1, token_hash = $2,
                token_issued_at = $1, token_expires_at = $3
            FROM users AS u
            WHERE f.id = $4 AND f.token_hash = $5 AND f.revoked_at IS NULL AND f.token_expires_at > $1
                AND f.client_id = $6 AND u.id = f.user_id AND NOT u.disabled
            RETURNING f.id, f.client_id, f.user_id, f.scopes, f.auth_time, f.created_at, f.revoked_at,
                \(user.joined(separator: ", ")),
                (SELECT r.resource FROM refresh_family_resources r WHERE r.family_id = f.id),
                (SELECT m.methods FROM refresh_family_methods m WHERE m.family_id = f.id),
                (SELECT s.sid FROM session_families s WHERE s.family_id = f.id),
                f.device_session_id
            """
    }()

    func rotateRefreshToken(
        familyID: String, from expected: [UInt8], to successor: [UInt8], clientID: String, now: Date,
        expiresAt: Date
    ) throws -> RefreshRotationRecord? {
        if isReadOnly { throw StoreError.misuse("a write operation inside a read-only transaction") }
        var record: RefreshRotationRecord?
        // Numbered already (`$n`, no `?`), so run() passes it on as it is.
        try run(
            Self.rotation,
            [.date(now), .bytes(successor), .date(expiresAt), .text(familyID), .bytes(expected), .text(clientID)]
        ) { row in
            guard record == nil else { return }
            let family = RefreshFamily(
                id: row.text(0), clientID: row.text(1), userID: row.text(2), scopes: try row.list(3),
                authTime: try row.date(4), createdAt: try row.date(5), revokedAt: try row.optionalDate(6))
            let user = UserRecord(
                id: row.text(7), email: row.text(8), name: row.text(9), postalCode: row.optionalText(10),
                passwordHash: row.text(11), isDisabled: try row.bool(12), isEmailVerified: try row.bool(15),
                createdAt: try row.date(13), updatedAt: try row.date(14))
            record = RefreshRotationRecord(
                family: family, user: user, resource: row.optionalText(16),
                authenticationMethods: row.optionalText(17).map { $0.split(separator: " ").map(String.init) },
                sessionID: row.optionalText(18), deviceSessionID: row.optionalText(19))
        }
        return record
    }
}
