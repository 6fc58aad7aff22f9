import Foundation
import PorticoCrypto
import PorticoStore

/// What a presented refresh token is to its family, and rotation: the provider's policy on the
/// store's primitives (``RefreshTokenStorage``), the same on every backend.
///
/// A family keeps two token hashes: its current token's and the one its last rotation
/// replaced. A presented token is *current* (it rotates), *the one just replaced* (a client
/// retrying a lost response, or a replay: the grant's grace period decides,
/// ``RefreshRotation/previous(family:rotatedAt:)``), or *older* (reuse: the grant revokes the
/// family). Tokens name their family (``RefreshToken/familyID(of:)``); a token minted before
/// they did is found through the hashes the migration kept (`refreshFamilyID(legacyTokenHash:)`).
/// Both writes are compare-and-swaps on the current hash, so two rotations of one token racing
/// on separate connections cannot both succeed, whatever the isolation level.
extension StoreTransaction {
    /// The family `presented` belongs to, its token state, the presented token's hash and its
    /// standing; nil when no family matches.
    private func standing(of presented: String) throws
        -> (state: RefreshTokenState, hash: [UInt8], standing: RefreshTokenStanding, isLegacy: Bool)?
    {
        let hash = SecretHash.digest(presented)
        let familyID: String
        let isLegacy: Bool
        if let named = RefreshToken.familyID(of: presented) {
            familyID = String(named)
            isLegacy = false
        } else if let legacy = try refreshFamilyID(legacyTokenHash: hash) {
            familyID = legacy
            isLegacy = true
        } else {
            return nil
        }
        guard let state = try refreshTokenState(familyID: familyID) else { return nil }
        let standing: RefreshTokenStanding
        if let current = state.currentTokenHash, ConstantTime.equals(current, hash) {
            standing = .current
        } else if let previous = state.previousTokenHash, ConstantTime.equals(previous, hash),
            let rotatedAt = state.rotatedAt
        {
            standing = .previous(rotatedAt: rotatedAt)
        } else {
            standing = .older
        }
        return (state, hash, standing, isLegacy)
    }

    /// The token whose plain value is `token`: its family's current token or the one the last
    /// rotation replaced (or, for tokens minted before tokens named their family, any token the
    /// family had); nil for anything else.
    public func refreshToken(_ token: String) throws -> RefreshToken? {
        guard let (state, hash, standing, isLegacy) = try standing(of: token) else { return nil }
        let rotatedAt: Date?
        switch standing {
        case .current: rotatedAt = nil
        case .previous(let at): rotatedAt = at
        case .older:
            // A token of this family from before its last rotation: stored nowhere but the
            // legacy table, whose rows say no more than that.
            guard isLegacy else { return nil }
            rotatedAt = state.rotatedAt ?? state.family.createdAt
        }
        return RefreshToken(
            hashedToken: SecretHash.reference(bytes: hash), familyID: state.family.id, issuedAt: state.issuedAt,
            expiresAt: state.expiresAt, rotatedAt: rotatedAt)
    }

    /// Rotates a presented token: if it is current (and its family live and it unexpired) the
    /// token `replacement` returns becomes current and the presented one is remembered as the
    /// one replaced, by one compare-and-swap; otherwise the result says why not, and a reuse is
    /// reported rather than acted on (the grant decides what a replay revokes).
    ///
    /// `replacement` gets the family the lookup found (a token minted before tokens named their
    /// family does not say which it is), so the provider can mint a successor that names it
    /// (``RefreshToken/mint(familyID:)``) without reading the family first.
    public func rotateRefreshToken(
        _ presented: String, expiresAt: Date, now: Date, replacement: (RefreshFamily) throws -> String
    ) throws -> RefreshRotation {
        guard let (state, hash, standing, _) = try standing(of: presented) else { return .notFound }
        let family = state.family
        if family.isRevoked { return .revoked(family: family) }
        switch standing {
        case .older: return .reused(family: family)
        case .previous(let rotatedAt): return .previous(family: family, rotatedAt: rotatedAt)
        case .current: break
        }
        if StoredTime.isExpired(state.expiresAt, now: now) { return .expired(family: family) }
        let successorHash = SecretHash.digest(try replacement(family))
        guard
            try rotateRefreshToken(
                familyID: family.id, from: hash, to: successorHash, issuedAt: now, expiresAt: expiresAt)
        else {
            // Another rotation of the same token won the swap between the read and the write (a
            // backend that does not serialise writers, PostgreSQL at READ COMMITTED): read again,
            // so that this request sees what it would have seen a moment later — the token it
            // presented is now the one replaced (the grace period), exactly as on SQLite.
            guard let (again, _, standingNow, _) = try self.standing(of: presented) else { return .notFound }
            if again.family.isRevoked { return .revoked(family: again.family) }
            switch standingNow {
            case .previous(let rotatedAt): return .previous(family: again.family, rotatedAt: rotatedAt)
            case .older, .current: return .reused(family: again.family)
            }
        }
        return .rotated(
            family: family,
            successor: RefreshToken(
                hashedToken: SecretHash.reference(bytes: successorHash), familyID: family.id,
                issuedAt: StoredTime.stored(now), expiresAt: StoredTime.stored(expiresAt), rotatedAt: nil))
    }

    /// Rotates a presented token to a `replacement` known in advance; see
    /// ``rotateRefreshToken(_:expiresAt:now:replacement:)``.
    public func rotateRefreshToken(_ presented: String, replacement: String, expiresAt: Date, now: Date) throws
        -> RefreshRotation
    {
        try rotateRefreshToken(presented, expiresAt: expiresAt, now: now) { _ in replacement }
    }

    /// The reuse grace period's step: replaces the family's current token — which the client
    /// never received, as it has just presented the token before it
    /// (``RefreshRotation/previous(family:rotatedAt:)``) — with `replacement`, issued `now`, keeping
    /// the presented one as the one replaced. False when the family is revoked or gone, or when
    /// another request replaced the current token first (compare-and-swap).
    public func supersedeRefreshToken(familyID: String, replacement: String, expiresAt: Date, now: Date) throws
        -> Bool
    {
        guard let state = try refreshTokenState(familyID: familyID), let current = state.currentTokenHash else {
            return false
        }
        return try replaceRefreshToken(
            familyID: familyID, expected: current, with: SecretHash.digest(replacement), issuedAt: now,
            expiresAt: expiresAt)
    }
}

/// What a presented refresh token is to the family it names.
enum RefreshTokenStanding {
    /// The family's current token.
    case current
    /// The one the last rotation, at `rotatedAt`, replaced.
    case previous(rotatedAt: Date)
    /// Any token before that.
    case older
}
