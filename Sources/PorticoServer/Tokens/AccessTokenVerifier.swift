import Foundation
import PorticoCrypto
import PorticoStore

/// An access token whose signature, type, issuer and lifetime have been checked.
struct VerifiedAccessToken: Sendable {
    /// `jti`, the key of its revocation.
    let tokenID: String
    /// `sub`: a user id, or the client id for client credentials.
    let subject: String
    /// `client_id`.
    let clientID: String
    /// `scope`, split.
    let scopes: [String]
    /// `aud`.
    let audience: [String]
    /// `iat`.
    let issuedAt: Date
    /// `exp`.
    let expiresAt: Date
    /// `auth_time`; nil for tokens that speak for a client rather than a person.
    let authTime: Date?
    /// `sid`: the Native SSO device session it was issued in, if any.
    var sessionID: String? = nil
    /// `act.sub`: the host app that delegated this token to a mini-program (RFC 8693 §4.1).
    var actorClientID: String? = nil
    /// `companion_session`: the companion session it was issued in, if any (``CompanionSessions``).
    var companionSessionID: String? = nil
    /// `cnf.jkt`: the thumbprint of the key it is bound to (DPoP, RFC 9449 §6); nil for a bearer token.
    var confirmationKey: String? = nil

    /// Whether the token speaks for a person (it was issued through a user's authorization).
    var hasUser: Bool { authTime != nil }

    /// Whether any of `accepted` was granted.
    func grantsAny(of accepted: Set<String>) -> Bool {
        scopes.contains { accepted.contains($0) }
    }
}

/// Verifies Portico's own access tokens for the resource endpoints, revocation and
/// introspection.
///
/// Why a cache: an ES256 verification costs tens of microseconds and an app calls userinfo
/// with the same token many times, so a verified token is kept (keyed by its exact text, in a
/// ``VerifiedTokenCache`` of 20,000 entries by default) until it expires. The cache only ever
/// remembers what is immutable about a token — its signature and claims. Revocation is *not* cached here: several nodes share one
/// database and any of them (or `/account` on another node) may revoke a token, so callers ask
/// the store with ``isRevoked(_:in:)``, one indexed lookup that shares the read transaction the
/// endpoint opens for the user anyway. Only where the store reports every change
/// (PostgreSQL's notifications) does ``StandingCache`` keep the usual token's standing, exactly.
final class AccessTokenVerifier: Sendable {
    private let keys: KeyRing
    private let issuer: IssuerIdentifier
    private let now: @Sendable () -> Date
    /// Verified tokens, while the keys that verified them are loaded (``KeyRing/generation``).
    private let cache: VerifiedTokenCache<VerifiedAccessToken>

    /// A verifier for tokens signed by `keys` for `issuer`.
    init(keys: KeyRing, issuer: IssuerIdentifier, now: @escaping @Sendable () -> Date, capacity: Int = 20_000) {
        self.keys = keys
        self.issuer = issuer
        self.now = now
        cache = VerifiedTokenCache(capacity: capacity)
    }

    /// Checks `token`'s signature (ES256 from the provider's keys, `typ: at+jwt`), issuer and
    /// lifetime, and reads its claims; the store is not consulted.
    ///
    /// - Throws: `invalid_token` for anything that is not a live access token of this provider.
    func verify(_ token: String) throws(OAuthError) -> VerifiedAccessToken {
        let now = now()
        // Only trusted while the keys are the ones that verified it (a revoked key drops out).
        // A cached token was signed by a loaded key, so only a miss reads the token's `kid`.
        if let cached = cache.value(of: token, generation: keys.generation) {
            guard now < cached.expiresAt else { throw .invalidToken("The access token has expired.") }
            return cached
        }
        let (keyVerifier, generation) = keys.verifierAndGeneration(for: token)
        let validator = JWTValidator(issuer: issuer.current, clockSkew: 5, now: { now })
        let claims: JWTClaims
        do {
            claims = try keyVerifier.verifyJWT(
                token, algorithms: [TokenIssuer.accessTokenAlgorithm], type: TokenIssuer.accessTokenType,
                validator: validator)
        } catch JOSEError.expired {
            throw .invalidToken("The access token has expired.")
        } catch {
            throw .invalidToken("The access token is not valid.")
        }
        guard let verified = Self.accessToken(from: claims) else {
            throw .invalidToken("The access token is not valid.")
        }
        guard now < verified.expiresAt else { throw .invalidToken("The access token has expired.") }
        cache.remember(verified, of: token, generation: generation)
        return verified
    }

    /// `token` as ``verify(_:)`` verified it before, when it is still cached, its keys still the
    /// loaded ones and it has not expired; nil otherwise. Never reads the store (``verify(_:)``
    /// may, to load a key it has not seen), so an epoll thread may call it.
    func verifiedFromMemory(_ token: String) -> VerifiedAccessToken? {
        guard let cached = cache.value(of: token, generation: keys.generation), now() < cached.expiresAt else {
            return nil
        }
        return cached
    }

    /// Whether ``isRevoked(_:userID:in:)`` consults nothing but the revocation lists for
    /// `token` (no delegation, companion session or Native SSO session to check), so that
    /// `isAccessTokenRevoked(id:userID:clientID:issuedAt:)` alone decides.
    func revocationListsDecide(_ token: VerifiedAccessToken) -> Bool {
        token.actorClientID == nil && token.companionSessionID == nil && token.sessionID == nil
    }

    /// Whether `token` has been revoked, read inside the caller's transaction.
    ///
    /// Revoked means: the token itself (RFC 7009), or the person removed the app in Your Account
    /// at or after the token was issued.
    ///
    /// `userID` is the person the token speaks for when its `sub` is not the account id (a
    /// pairwise subject, see ``PairwiseSubjects``). A token issued in a Native SSO device
    /// session is also revoked once that session ends (its device secret revoked, the browser
    /// signed out, the person disabled), and a token delegated to a mini-program once its host's
    /// link with the person is gone or the mini-program is disabled (``DelegatedAccess``).
    func isRevoked(_ token: VerifiedAccessToken, userID: String? = nil, in transaction: any StoreTransaction) throws
        -> Bool
    {
        var companionSession: CompanionSession?
        return try isRevoked(token, userID: userID, companionSession: &companionSession, in: transaction)
    }

    /// ``isRevoked(_:userID:in:)``, handing back in `companionSession` the live companion session
    /// the token was issued in, if any: the check reads it anyway, so a caller that needs it
    /// (``CompanionCaller``) does not read it again.
    func isRevoked(
        _ token: VerifiedAccessToken, userID: String? = nil, companionSession: inout CompanionSession?,
        in transaction: any StoreTransaction
    ) throws -> Bool {
        companionSession = nil
        if try transaction.isAccessTokenRevoked(
            id: token.tokenID, userID: userID ?? token.subject, clientID: token.clientID, issuedAt: token.issuedAt)
        {
            return true
        }
        if let host = token.actorClientID,
            try !DelegatedAccess.isLive(token, host: host, userID: userID ?? token.subject, in: transaction)
        {
            return true
        }
        if let companionSessionID = token.companionSessionID {
            companionSession = try CompanionSessions.liveSession(companionSessionID, in: transaction)
            if companionSession == nil { return true }
        }
        guard let sessionID = token.sessionID else { return false }
        return try transaction.deviceSession(id: sessionID)?.isRevoked ?? true
    }

    /// The typed claims, or nil when one the provider always writes is missing or malformed.
    private static func accessToken(from claims: JWTClaims) -> VerifiedAccessToken? {
        guard let tokenID = claims.jwtID, let subject = claims.subject, let issuedAt = claims.issuedAt,
            let expiresAt = claims.expiresAt, let clientID = claims["client_id"]?.stringValue,
            let scope = claims["scope"]?.stringValue
        else { return nil }
        var authTime: Date?
        if let value = claims["auth_time"] {
            guard let seconds = value.integerValue else { return nil }
            authTime = Date(timeIntervalSince1970: TimeInterval(seconds))
        }
        var verified = VerifiedAccessToken(
            tokenID: tokenID, subject: subject, clientID: clientID, scopes: ScopeCatalog.parse(scope),
            audience: claims.audience, issuedAt: issuedAt, expiresAt: expiresAt, authTime: authTime)
        if let value = claims["sid"] {
            guard let sessionID = value.stringValue else { return nil }
            verified.sessionID = sessionID
        }
        if let value = claims["act"] {
            guard let actor = value.objectValue?["sub"]?.stringValue else { return nil }
            verified.actorClientID = actor
        }
        if let value = claims["cnf"] {
            guard let key = value.objectValue?["jkt"]?.stringValue else { return nil }
            verified.confirmationKey = key
        }
        if let value = claims[CompanionSessions.claim] {
            guard let companionSessionID = value.stringValue else { return nil }
            verified.companionSessionID = companionSessionID
        }
        return verified
    }
}
