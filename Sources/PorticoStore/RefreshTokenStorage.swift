import Foundation

/// Refresh-token families and the two token hashes each keeps.
///
/// A family row holds its current token's hash and the one its last rotation replaced; tokens
/// name their family (``RefreshToken/familyID(of:)``), so the provider finds it by id. What a
/// presented token *is* (current, just replaced, older) and what follows (rotate, the reuse
/// grace, revoking the family) is the provider's policy; the store offers the state and two
/// compare-and-swap steps on the current hash.
///
/// Part of ``StoreTransaction``; see its "Implementation requirements".
public protocol RefreshTokenStorage {
    /// Starts a refresh-token family whose first token is `token` (only its hash is kept).
    func insert(_ family: RefreshFamily, token: String, expiresAt: Date) throws
    /// The family with this id.
    func refreshFamily(id: String) throws -> RefreshFamily?
    /// A person's families, newest first; revoked ones only if asked.
    func refreshFamilies(userID: String, includeRevoked: Bool) throws -> [RefreshFamily]
    /// Revokes a family if it is live (conditional); false when it was revoked already or is gone.
    @discardableResult func revokeRefreshFamily(id: String, now: Date) throws -> Bool
    /// Revokes every live family of a person with one app (consent revoked); returns how many.
    @discardableResult func revokeRefreshFamilies(userID: String, clientID: String, now: Date) throws -> Int
    /// The family with this id and its token state, in one read.
    func refreshTokenState(familyID: String) throws -> RefreshTokenState?
    /// The family that a token minted before tokens named their family belonged to, by the
    /// token's SHA-256 (``SecretHash/digest(_:)``); nil for any other hash.
    func refreshFamilyID(legacyTokenHash: [UInt8]) throws -> String?
    /// The swap a rotation makes, as one compare-and-swap: if the live family's current token
    /// hash is still `expected`, `successor` becomes current (issued at `issuedAt`, usable until
    /// `expiresAt`) and `expected` is kept as the one replaced, rotated at `issuedAt`. False when
    /// the condition failed (someone rotated first, or the family was revoked): nothing changed.
    /// Named apart from the policy's decision (`RefreshTokenPolicy.rotate` in `PorticoServer`)
    /// and the one-statement rotation
    /// (``RefreshRotationStorage/rotateRefreshToken(familyID:from:to:clientID:now:expiresAt:)``),
    /// which mean more.
    func swapRefreshToken(
        familyID: String, from expected: [UInt8], to successor: [UInt8], issuedAt: Date, expiresAt: Date
    ) throws -> Bool
    /// The reuse grace period's step, as one compare-and-swap: if the live family's current
    /// token hash is still `expected` and a rotation has replaced one before it, `replacement`
    /// takes its place (issued at `issuedAt`), keeping the replaced one as it is. False when the
    /// condition failed: nothing changed.
    func replaceRefreshToken(
        familyID: String, expected: [UInt8], with replacement: [UInt8], issuedAt: Date, expiresAt: Date
    ) throws -> Bool
}
