import Foundation

/// Refresh rotation as one atomic step that also reads what the grant needs: on a database
/// across the network (PostgreSQL) the common case of a refresh grant is then one statement,
/// run alone (``Store/writeOne(_:)``), one round trip instead of six.
///
/// Only the success case is folded: the step either rotates, under conditions the caller names,
/// or changes nothing and says only that (nil). What a failed condition means — reuse, the
/// grace period, a revoked family, an expired token, another client's token, a disabled
/// account — the provider then learns from ``RefreshTokenStorage/refreshTokenState(familyID:)``
/// and decides as it always does; the backend decides none of it.
///
/// Part of ``StoreTransaction``; see its "Implementation requirements".
public protocol RefreshRotationStorage {
    /// Rotation, as one compare-and-swap with more conditions than
    /// ``RefreshTokenStorage/swapRefreshToken(familyID:from:to:issuedAt:expiresAt:)``: if
    /// family `familyID` is live, its current token hash is still `expected`, that token is
    /// unexpired at `now` (whole seconds, as ``StoredTime/isExpired(_:now:)``), the family was
    /// issued to `clientID`, its person exists and is not disabled, and it is not bound to a DPoP
    /// key (``DPoPStorage/bindRefreshFamily(_:toKey:)``: the proof is checked before any
    /// rotation, in a transaction), then `successor` becomes
    /// current (issued at `now`, usable until `expiresAt`) and `expected` is kept as the one
    /// replaced, rotated at `now` — exactly what that primitive writes — and the family, its
    /// person and the rows that hang off the family are returned. Nil when any condition failed:
    /// nothing changed.
    func rotateRefreshToken(
        familyID: String, from expected: [UInt8], to successor: [UInt8], clientID: String, now: Date,
        expiresAt: Date
    ) throws -> RefreshRotationRecord?

    /// The same rotation and the first use of a DPoP proof (as
    /// ``DPoPStorage/recordDPoPProof(keyThumbprint:jti:expiresAt:)``) as one atomic step: both
    /// happen or neither does. A refused request so leaves its proof unused (the long way may
    /// still take it) and a replayed proof leaves the token unrotated; of two rotations of two
    /// families racing with one proof, on one node or two, exactly one rotates. On PostgreSQL
    /// one statement, where a transaction around an insert and the update took four round trips.
    func rotateRefreshToken(
        familyID: String, from expected: [UInt8], to successor: [UInt8], clientID: String, now: Date,
        expiresAt: Date, proof: DPoPProofUse
    ) throws -> ProvedRotation
}

/// A DPoP proof's first use, as a rotation records it (``DPoPStorage``'s terms).
public struct DPoPProofUse: Sendable, Hashable {
    /// The thumbprint of the key the proof was made with.
    public let keyThumbprint: String
    /// The proof's `jti`.
    public let jti: String
    /// How long the use is remembered.
    public let expiresAt: Date

    /// A proof's use.
    public init(keyThumbprint: String, jti: String, expiresAt: Date) {
        self.keyThumbprint = keyThumbprint
        self.jti = jti
        self.expiresAt = expiresAt
    }
}

/// What a rotation with a DPoP proof did
/// (``RefreshRotationStorage/rotateRefreshToken(familyID:from:to:clientID:now:expiresAt:proof:)``).
public enum ProvedRotation: Sendable {
    /// Rotated, and the proof recorded as used.
    case rotated(RefreshRotationRecord)
    /// The proof was used before: nothing changed.
    case proofReplayed
    /// A condition of the rotation failed: nothing changed, the proof not recorded either.
    case unchanged
}
