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

    /// The rotation and the proof's first use in one statement: the insert takes its row from
    /// the update's, so a rotation that changed nothing records nothing, and it has no `ON
    /// CONFLICT`, so a replayed proof fails the whole statement (the update with it). A racing
    /// insert of the same proof on another connection makes this one wait for that one's
    /// commit, then fail: one of them rotates.
    private static let provedRotation = """
        WITH rotated AS (\(rotation)),
            proof AS (INSERT INTO dpop_proofs (proof_hash, expires_at) SELECT $7::bytea, $8::bigint FROM rotated)
        SELECT * FROM rotated
        """

    func rotateRefreshToken(
        familyID: String, from expected: [UInt8], to successor: [UInt8], clientID: String, now: Date,
        expiresAt: Date, proof: DPoPProofUse
    ) throws -> ProvedRotation {
        if isReadOnly { throw StoreError.misuse("a write operation inside a read-only transaction") }
        var record: RefreshRotationRecord?
        do {
            try run(
                Self.provedRotation,
                [
                    .date(now), .bytes(successor), .date(expiresAt), .text(familyID), .bytes(expected), .text(clientID),
                    Self.proofHash(keyThumbprint: proof.keyThumbprint, jti: proof.jti), .date(proof.expiresAt),
                ]
            ) { row in
                if record == nil { record = try Self.decodeRefreshRotation(row) }
            }
        } catch StoreError.duplicate {
            return .proofReplayed
        }
        return record.map(ProvedRotation.rotated) ?? .unchanged
    }
}
