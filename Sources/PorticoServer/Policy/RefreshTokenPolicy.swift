import Foundation
import PorticoCrypto
import PorticoStore

/// What a presented refresh token is to its family, rotation and its reuse grace: the
/// provider's policy on the store's compare-and-swap primitives (``RefreshTokenStorage``), the
/// same on every backend. A type of its own that asks only for the storage it uses, so that it
/// runs inside any transaction (or a test's store) without reaching for the rest of the store.
///
/// A family keeps two token hashes: its current token's and the one its last rotation
/// replaced. A presented token is *current* (it rotates), *the one just replaced* (a client
/// retrying a lost response, or a replay: ``retry(family:rotatedAt:in:now:)`` decides by
/// ``reuseGrace``), or *older* (reuse: the grant revokes the family). Tokens name their family
/// (``RefreshToken/familyID(of:)``); a token minted before they did is found through the hashes
/// the migration kept (`refreshFamilyID(legacyTokenHash:)`). Both writes are compare-and-swaps
/// on the current hash, so two rotations of one token racing on separate connections cannot
/// both succeed, whatever the isolation level.
public struct RefreshTokenPolicy: Sendable {
    /// How long each token the policy issues (a successor, or a retry's replacement) stays
    /// usable if it is not rotated first (``TokenLifetimes/refreshToken``).
    public let tokenLifetime: TimeInterval
    /// How long after a rotation the token it replaced may come back and get a fresh successor
    /// instead of counting as reuse (``TokenLifetimes/refreshReuseGrace``, 30 s by default): a
    /// lost response must not sign anyone out.
    public let reuseGrace: TimeInterval

    /// A policy with these lifetimes.
    public init(tokenLifetime: TimeInterval, reuseGrace: TimeInterval) {
        self.tokenLifetime = tokenLifetime
        self.reuseGrace = reuseGrace
    }

    /// The policy the provider runs with `lifetimes`.
    public init(_ lifetimes: TokenLifetimes) {
        self.init(tokenLifetime: lifetimes.refreshToken, reuseGrace: lifetimes.refreshReuseGrace)
    }

    /// The family `presented` belongs to, its token state, the presented token's hash and its
    /// standing; nil when no family matches.
    private static func standing(of presented: String, in storage: some RefreshTokenStorage) throws
        -> (state: RefreshTokenState, hash: [UInt8], standing: RefreshTokenStanding, isLegacy: Bool)?
    {
        let hash = SecretHash.digest(presented)
        let familyID: String
        let isLegacy: Bool
        if let named = RefreshToken.familyID(of: presented) {
            familyID = String(named)
            isLegacy = false
        } else if let legacy = try storage.refreshFamilyID(legacyTokenHash: hash) {
            familyID = legacy
            isLegacy = true
        } else {
            return nil
        }
        guard let state = try storage.refreshTokenState(familyID: familyID) else { return nil }
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
    /// family had); nil for anything else. Static: looking a token up needs no lifetimes, so
    /// the revocation and introspection endpoints need no policy of their own.
    public static func token(_ token: String, in storage: some RefreshTokenStorage) throws -> RefreshToken? {
        guard let (state, hash, standing, isLegacy) = try standing(of: token, in: storage) else { return nil }
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

    /// The policy's decision on a presented token: if it is current (and its family live and it
    /// unexpired) the token `replacement` returns becomes current for ``tokenLifetime`` and the
    /// presented one is remembered as the one replaced, by one compare-and-swap
    /// (``RefreshTokenStorage/swapRefreshToken(familyID:from:to:issuedAt:expiresAt:)``);
    /// otherwise the result says why not, and a reuse is reported rather than acted on (the
    /// grant decides what a replay revokes, after its own checks).
    ///
    /// `replacement` gets the family the lookup found (a token minted before tokens named their
    /// family does not say which it is), so the provider can mint a successor that names it
    /// (``RefreshToken/mint(familyID:)``) without reading the family first.
    public func rotate(
        _ presented: String, in storage: some RefreshTokenStorage, now: Date,
        replacement: (RefreshFamily) throws -> String
    ) throws -> RefreshRotation {
        guard let (state, hash, standing, _) = try Self.standing(of: presented, in: storage) else { return .notFound }
        let family = state.family
        if family.isRevoked { return .revoked(family: family) }
        switch standing {
        case .older: return .reused(family: family)
        case .previous(let rotatedAt): return .previous(family: family, rotatedAt: rotatedAt)
        case .current: break
        }
        if StoredTime.isExpired(state.expiresAt, now: now) { return .expired(family: family) }
        let successorHash = SecretHash.digest(try replacement(family))
        let expiresAt = now.addingTimeInterval(tokenLifetime)
        guard
            try storage.swapRefreshToken(
                familyID: family.id, from: hash, to: successorHash, issuedAt: now, expiresAt: expiresAt)
        else {
            // Another rotation of the same token won the swap between the read and the write (a
            // backend that does not serialise writers, PostgreSQL at READ COMMITTED): read again,
            // so that this request sees what it would have seen a moment later — the token it
            // presented is now the one replaced (the grace period), exactly as on SQLite.
            guard let (again, _, standingNow, _) = try Self.standing(of: presented, in: storage) else {
                return .notFound
            }
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

    /// What becomes of a token the family's last rotation, at `rotatedAt`, replaced
    /// (``RefreshRotation/previous(family:rotatedAt:)``), once the grant's own checks passed.
    public enum Retry: Sendable, Equatable {
        /// Within the grace: `token` now replaces the unused current one (a lost response retried).
        case reissued(token: String)
        /// Within the grace, but the family was revoked or another request replaced its current
        /// token first: nothing was changed.
        case superseded
        /// Past the grace: a replay; the grant revokes the family. Nothing was changed.
        case replay
    }

    /// The reuse grace's decision: within ``reuseGrace`` of the rotation, the family's current
    /// token — which the client never received — is superseded by a freshly minted one
    /// (``supersede(familyID:replacement:in:now:)``); past it, the presented token is a replay.
    public func retry(family: RefreshFamily, rotatedAt: Date, in storage: some RefreshTokenStorage, now: Date)
        throws -> Retry
    {
        guard now.timeIntervalSince(rotatedAt) <= reuseGrace else { return .replay }
        let replacement = RefreshToken.mint(familyID: family.id)
        guard try supersede(familyID: family.id, replacement: replacement, in: storage, now: now) else {
            return .superseded
        }
        return .reissued(token: replacement)
    }

    /// The reuse grace period's step: replaces the family's current token — which the client
    /// never received, as it has just presented the token before it
    /// (``RefreshRotation/previous(family:rotatedAt:)``) — with `replacement`, issued `now` for
    /// ``tokenLifetime``, keeping the presented one as the one replaced. False when the family is
    /// revoked or gone, or when another request replaced the current token first
    /// (compare-and-swap).
    public func supersede(familyID: String, replacement: String, in storage: some RefreshTokenStorage, now: Date)
        throws -> Bool
    {
        guard let state = try storage.refreshTokenState(familyID: familyID), let current = state.currentTokenHash
        else {
            return false
        }
        return try storage.replaceRefreshToken(
            familyID: familyID, expected: current, with: SecretHash.digest(replacement), issuedAt: now,
            expiresAt: now.addingTimeInterval(tokenLifetime))
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
