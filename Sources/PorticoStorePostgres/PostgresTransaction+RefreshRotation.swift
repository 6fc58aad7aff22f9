import Foundation
import PorticoStore
import PorticoStoreSQL

// Refresh rotation with the reads a refresh grant needs, in one statement.
extension PostgresTransaction {
    /// The statement, built once: one UPDATE whose WHERE is the whole condition, returning the
    /// shared rotation columns (the family's as `f`, its person's as `u`, then the rows that hang
    /// off the family). A second rotation of one token waits for the first's row lock, then
    /// re-checks `token_hash` against the row the first left and writes nothing (as the two-step
    /// rotation does). The person is joined, not locked: a disabling committed before this
    /// statement began stops it. A family bound to a DPoP key is left to the transaction, which
    /// checks the proof before it rotates.
    private static let rotation = """
        UPDATE refresh_families AS f SET previous_token_hash = f.token_hash, rotated_at = $1, token_hash = $2,
            token_issued_at = $1, token_expires_at = $3
        FROM users AS u
        WHERE f.id = $4 AND f.token_hash = $5 AND f.revoked_at IS NULL AND f.token_expires_at > $1
            AND f.client_id = $6 AND u.id = f.user_id AND NOT u.disabled
            AND NOT EXISTS (SELECT 1 FROM refresh_family_keys AS k WHERE k.family_id = f.id)
        RETURNING \(refreshRotationColumnList)
        """

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
            if record == nil { record = try Self.decodeRefreshRotation(row) }
        }
        return record
    }
}
