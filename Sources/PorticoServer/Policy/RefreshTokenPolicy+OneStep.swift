import Foundation
import PorticoStore

/// The common case of a refresh grant in one step: a current token of a live family, presented
/// by its client for its person, rotated by one compare-and-swap that also reads what the grant
/// issues from (``RefreshRotationStorage``), run alone (``Store/writeOne(_:)``: on PostgreSQL
/// one statement, no transaction around it).
///
/// The step rotates only when every check of the two-step rotation
/// (``RefreshTokenPolicy/rotate(_:in:now:replacement:)`` and the grant's checks after it) would
/// pass, and changes nothing otherwise; then the caller runs the two-step rotation, which reads
/// the family again and decides what the token is (reuse, the grace period, revoked, expired)
/// exactly as it always has. So racing rotations of one token end as they do there: one wins,
/// the other finds its token the one just replaced.
extension RefreshTokenPolicy {
    /// Rotates `presented` in one step for `clientID`: the record and the successor token
    /// (usable for ``tokenLifetime``), or nil when the step changed nothing (any failed check, or
    /// a token that does not name its family, which only the two-step rotation finds). Takes the
    /// store, not a transaction: the step is its own write (``Store/writeOne(_:)``).
    public func rotateInOneStep(_ presented: String, clientID: String, in store: some Store, now: Date)
        throws -> (record: RefreshRotationRecord, successor: String)?
    {
        guard let named = RefreshToken.familyID(of: presented) else { return nil }
        let familyID = String(named)
        let successor = RefreshToken.mint(familyID: familyID)
        let expected = SecretHash.digest(presented)
        let successorHash = SecretHash.digest(successor)
        let expiresAt = now.addingTimeInterval(tokenLifetime)
        let record = try store.writeOne {
            try $0.rotateRefreshToken(
                familyID: familyID, from: expected, to: successorHash, clientID: clientID, now: now,
                expiresAt: expiresAt)
        }
        return record.map { ($0, successor) }
    }

    /// The same step with a DPoP proof's first use, both or neither
    /// (``RefreshRotationStorage/rotateRefreshToken(familyID:from:to:clientID:now:expiresAt:proof:)``;
    /// on PostgreSQL still one statement): the record and the successor, nil when the step changed
    /// nothing and recorded nothing (the two-step rotation then decides, and records the proof
    /// itself), or ``ProvedRotation/proofReplayed`` as the thrown refusal the grant answers with.
    public func rotateInOneStep(
        _ presented: String, clientID: String, proof: DPoPProofUse, in store: some Store, now: Date,
        replayed: @autoclosure () -> any Error
    ) throws -> (record: RefreshRotationRecord, successor: String)? {
        guard let named = RefreshToken.familyID(of: presented) else { return nil }
        let familyID = String(named)
        let successor = RefreshToken.mint(familyID: familyID)
        let expected = SecretHash.digest(presented)
        let successorHash = SecretHash.digest(successor)
        let expiresAt = now.addingTimeInterval(tokenLifetime)
        let outcome = try store.writeOne {
            try $0.rotateRefreshToken(
                familyID: familyID, from: expected, to: successorHash, clientID: clientID, now: now,
                expiresAt: expiresAt, proof: proof)
        }
        switch outcome {
        case .rotated(let record): return (record, successor)
        case .unchanged: return nil
        case .proofReplayed: throw replayed()
        }
    }
}
