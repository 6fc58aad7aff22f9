import Foundation
import PorticoStore
import PorticoStoreSQL

// Refresh rotation with the reads a refresh grant needs (two statements in the transaction
// that ``Store/writeOne(_:)`` runs on SQLite).
extension SQLiteTransaction {
    /// What the rotation reads after its write, built once (it runs on every refresh grant): the
    /// shared rotation columns (the family's, its person's, then the rows that hang off the family).
    private static let rotationRead = """
        SELECT \(refreshRotationColumnList)
        FROM refresh_families AS f JOIN users AS u ON u.id = f.user_id
        WHERE f.id = ?
        """

    func rotateRefreshToken(
        familyID: String, from expected: [UInt8], to successor: [UInt8], clientID: String, now: Date,
        expiresAt: Date
    ) throws -> RefreshRotationRecord? {
        // The whole condition is in the WHERE, so the write is the compare-and-swap; the read
        // that follows sees this transaction's own write. A family bound to a DPoP key is left to
        // the transaction, which checks the proof before it rotates.
        let changed = try write(
            """
            UPDATE refresh_families SET previous_token_hash = token_hash, rotated_at = ?, token_hash = ?,
                token_issued_at = ?, token_expires_at = ?
            WHERE id = ? AND token_hash = ? AND revoked_at IS NULL AND token_expires_at > ? AND client_id = ?
                AND EXISTS (SELECT 1 FROM users AS u WHERE u.id = refresh_families.user_id AND NOT u.disabled)
                AND NOT EXISTS (SELECT 1 FROM refresh_family_keys AS k WHERE k.family_id = refresh_families.id)
            """,
            [
                .date(now), .bytes(successor), .date(now), .date(expiresAt), .text(familyID), .bytes(expected),
                .date(now), .text(clientID),
            ])
        guard changed > 0 else { return nil }
        return try first(Self.rotationRead, [.text(familyID)], Self.decodeRefreshRotation)
    }

    /// Within SQLite's one writer (this transaction holds the write lock from its start), a
    /// look for the proof, the rotation, then the proof's insert: nobody can record the proof
    /// in between.
    func rotateRefreshToken(
        familyID: String, from expected: [UInt8], to successor: [UInt8], clientID: String, now: Date,
        expiresAt: Date, proof: DPoPProofUse
    ) throws -> ProvedRotation {
        let hash = Self.proofHash(keyThumbprint: proof.keyThumbprint, jti: proof.jti)
        if try first("SELECT 1 AS seen FROM dpop_proofs WHERE proof_hash = ?", [hash], { _ in true }) != nil {
            return .proofReplayed
        }
        guard
            let record = try rotateRefreshToken(
                familyID: familyID, from: expected, to: successor, clientID: clientID, now: now, expiresAt: expiresAt)
        else { return .unchanged }
        try write("INSERT INTO dpop_proofs (proof_hash, expires_at) VALUES (?, ?)", [hash, .date(proof.expiresAt)])
        return .rotated(record)
    }
}
