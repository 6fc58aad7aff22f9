import Foundation
import PorticoCrypto
import PorticoStore

/// Mints the JWTs the token endpoint hands out: RFC 9068 access tokens and OIDC ID tokens.
///
/// Why separate from the grants: every grant (authorization code, refresh, client credentials,
/// later device code and token exchange) issues the same shapes, and signing must happen
/// outside the database transaction that decided what to issue, so the grants pass a plain
/// description (``AccessTokenGrant``) here afterwards.
struct TokenIssuer {
    /// The algorithm of every access token (DESIGN, "Tokens").
    static let accessTokenAlgorithm = SignatureAlgorithm.es256
    /// The JWS `typ` of access tokens (RFC 9068 §2.1).
    static let accessTokenType = "at+jwt"

    /// What an access token says: who, for which client, which scopes, until when.
    struct AccessTokenGrant: Sendable {
        /// `sub`: the user id, or the client id for client credentials.
        let subject: String
        /// `client_id`: the client it was issued to.
        let clientID: String
        /// `scope`: the granted scopes, in order.
        let scopes: [String]
        /// `auth_time`: when the person signed in; nil for client credentials.
        let authTime: Date?
        /// `jti`: the token's id, by which it can be revoked.
        let tokenID: String
        /// `iat`.
        let issuedAt: Date
        /// `exp`.
        let expiresAt: Date
    }

    /// What an ID token needs besides the access token it accompanies.
    struct IdentityGrant: Sendable {
        /// The person.
        let user: UserRecord
        /// The client (`aud`, and its choice of signing algorithm).
        let client: Client
        /// The granted scopes, deciding which claims it carries.
        let scopes: [String]
        /// `auth_time`.
        let authTime: Date
        /// The `nonce` of the authorization request, if any.
        let nonce: String?
    }

    /// The provider whose keys and issuer sign the tokens.
    let context: ProviderContext

    /// A fresh `jti`: 128 random bits.
    static func makeTokenID() -> String {
        SecureRandom.token(bits: 128)
    }

    /// A description of an access token issued now, living `lifetimes.accessToken`.
    func accessTokenGrant(subject: String, clientID: String, scopes: [String], authTime: Date?) -> AccessTokenGrant {
        let now = context.now()
        return AccessTokenGrant(
            subject: subject, clientID: clientID, scopes: scopes, authTime: authTime, tokenID: Self.makeTokenID(),
            issuedAt: now, expiresAt: now.addingTimeInterval(context.lifetimes.accessToken))
    }

    /// The signed access token for `grant`.
    func accessToken(for grant: AccessTokenGrant) throws(OAuthError) -> String {
        guard let key = context.keys.signer(for: Self.accessTokenAlgorithm) else { throw .serverError() }
        var claims = JWTClaims(
            issuer: context.issuer, subject: grant.subject, audience: [context.issuer], expiresAt: grant.expiresAt,
            issuedAt: grant.issuedAt, jwtID: grant.tokenID)
        claims["client_id"] = .string(grant.clientID)
        claims["scope"] = .string(grant.scopes.joined(separator: " "))
        if let authTime = grant.authTime { claims["auth_time"] = .integer(Self.seconds(authTime)) }
        return JWS.sign(claims: claims, key: key, type: Self.accessTokenType)
    }

    /// The signed ID token for `identity`, bound to `accessToken` by `at_hash`.
    func idToken(for identity: IdentityGrant, accessToken: String) throws(OAuthError) -> String {
        let algorithm = SignatureAlgorithm(rawValue: identity.client.idTokenSigningAlgorithm) ?? .rs256
        guard let key = context.keys.signer(for: algorithm) else { throw .serverError() }
        let now = context.now()
        var claims = JWTClaims(
            issuer: context.issuer, subject: identity.user.id, audience: [identity.client.id],
            expiresAt: now.addingTimeInterval(context.lifetimes.idToken), issuedAt: now)
        for (name, value) in UserClaims.released(about: identity.user, scopes: identity.scopes) where name != "sub" {
            claims[name] = value
        }
        claims["auth_time"] = .integer(Self.seconds(identity.authTime))
        if let nonce = identity.nonce { claims["nonce"] = .string(nonce) }
        claims["at_hash"] = .string(Self.accessTokenHash(accessToken, algorithm: algorithm))
        return JWS.sign(claims: claims, key: key, type: "JWT")
    }

    /// `at_hash` (OIDC Core §3.1.3.6): the left half of the access token's hash, with the hash
    /// of the ID token's algorithm: SHA-256 for RS256 and ES256, SHA-512 for EdDSA (Ed25519).
    static func accessTokenHash(_ accessToken: String, algorithm: SignatureAlgorithm) -> String {
        let digest: Digest = algorithm == .edDSA ? .sha512 : .sha256
        let hash = digest.hash(accessToken)
        return Base64URL.encode(hash.prefix(hash.count / 2))
    }

    /// A NumericDate in whole seconds.
    static func seconds(_ date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.down))
    }
}
