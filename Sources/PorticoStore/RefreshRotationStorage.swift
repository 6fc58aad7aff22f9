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
}
