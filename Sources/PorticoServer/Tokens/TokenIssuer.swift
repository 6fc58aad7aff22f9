import Foundation
import PorticoCrypto
import PorticoStore

/// Mints the JWTs the token endpoint hands out: RFC 9068 access tokens and OIDC ID tokens.
///
/// Why separate from the grants: every grant (authorization code, refresh, client credentials,
/// device code, and whatever ``TokenGrantRegistry`` lists next) issues the same shapes, and
/// signing must happen outside the database transaction that decided what to issue, so the
/// grants return a plain description (``TokenIssuance``) and ``response(for:)`` signs it:
/// the one place that turns a grant's decision into the token endpoint's answer.
struct TokenIssuer: Sendable {
    /// The algorithm of every access token (DESIGN, "Tokens").
    static let accessTokenAlgorithm = SignatureAlgorithm.es256
    /// The JWS `typ` of access tokens (RFC 9068 §2.1).
    static let accessTokenType = "at+jwt"

    /// What an access token says: who, for which client, which scopes, until when.
    struct AccessTokenGrant: Sendable {
        /// `sub`: the user id (a pairwise subject for such clients), or the client id for client
        /// credentials.
        var subject: String
        /// `client_id`: the client it was issued to.
        let clientID: String
        /// `scope`: the granted scopes, in order.
        let scopes: [String]
        /// `auth_time`: when the person signed in; nil for client credentials.
        let authTime: Date?
        /// `jti`: the token's id, by which it can be revoked.
        let tokenID: String
        /// `iat`. An issuance step may move it a second or two on (``RevocationOrderStep``).
        var issuedAt: Date
        /// `exp`.
        var expiresAt: Date
        /// `aud`: the issuer itself unless a grant names the resource servers the token is for
        /// (RFC 8707).
        var audience: [String]? = nil
        /// Claims a grant adds to the standard ones (say, `act` for a delegated token); they
        /// never replace one the issuer writes.
        var additionalClaims: [String: JSONValue] = [:]
        /// `cnf.jkt`: the thumbprint of the key the token is bound to (DPoP), making it a
        /// `DPoP` token; nil for a bearer token.
        var confirmationKey: String? = nil
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
        /// `sub` when it is not the account id (a pairwise subject, OIDC Core §8.1).
        var subject: String? = nil
        /// Claims a grant adds (Native SSO's `sid` and `ds_hash`); never replacing standard ones.
        var additionalClaims: [String: JSONValue] = [:]
    }

    /// The keys that sign.
    let keys: KeyRing
    /// `iss`, and the audience of access tokens.
    let issuer: IssuerIdentifier
    /// How long access and ID tokens live.
    let lifetimes: TokenLifetimes
    /// The clock.
    let now: @Sendable () -> Date

    /// A fresh `jti`: 128 random bits.
    static func makeTokenID() -> String {
        SecureRandom.token(bits: 128)
    }

    /// A description of an access token issued now, living `lifetimes.accessToken`.
    func accessTokenGrant(subject: String, clientID: String, scopes: [String], authTime: Date?) -> AccessTokenGrant {
        let now = now()
        return AccessTokenGrant(
            subject: subject, clientID: clientID, scopes: scopes, authTime: authTime, tokenID: Self.makeTokenID(),
            issuedAt: now, expiresAt: now.addingTimeInterval(lifetimes.accessToken))
    }

    /// The signed access token for `grant`.
    func accessToken(for grant: AccessTokenGrant) throws(OAuthError) -> String {
        guard let key = keys.signer(for: Self.accessTokenAlgorithm) else { throw .serverError() }
        let issuer = issuer.current
        var claims = JWTClaims(
            issuer: issuer, subject: grant.subject, audience: grant.audience ?? [issuer], expiresAt: grant.expiresAt,
            issuedAt: grant.issuedAt, jwtID: grant.tokenID)
        for (name, value) in grant.additionalClaims { claims[name] = value }
        claims["client_id"] = .string(grant.clientID)
        claims["scope"] = .string(grant.scopes.joined(separator: " "))
        if let authTime = grant.authTime { claims["auth_time"] = .integer(Self.seconds(authTime)) }
        if let key = grant.confirmationKey { claims["cnf"] = ["jkt": .string(key)] }
        return JWS.sign(claims: claims, key: key, type: Self.accessTokenType)
    }

    /// The signed ID token for `identity`, bound to `accessToken` by `at_hash`.
    func idToken(for identity: IdentityGrant, accessToken: String) throws(OAuthError) -> String {
        let algorithm = SignatureAlgorithm(rawValue: identity.client.idTokenSigningAlgorithm) ?? .rs256
        guard let key = keys.signer(for: algorithm) else { throw .serverError() }
        let now = now()
        let subject = identity.subject ?? identity.user.id
        var claims = JWTClaims(
            issuer: issuer.current, subject: subject, audience: [identity.client.id],
            expiresAt: now.addingTimeInterval(lifetimes.idToken), issuedAt: now)
        for (name, value) in identity.additionalClaims { claims[name] = value }
        for (name, value) in UserClaims.released(about: identity.user, scopes: identity.scopes, subject: subject)
        where name != "sub" {
            claims[name] = value
        }
        claims["auth_time"] = .integer(Self.seconds(identity.authTime))
        if claims["amr"] == nil { claims["amr"] = AuthenticationMethods.claim(AuthenticationMethods.password) }
        if let nonce = identity.nonce { claims["nonce"] = .string(nonce) }
        claims["at_hash"] = .string(Self.accessTokenHash(accessToken, algorithm: algorithm))
        return JWS.sign(claims: claims, key: key, type: "JWT")
    }

    /// Signs what a grant decided and builds the token endpoint's answer: the access token, an
    /// ID token bound to it when `openid` was granted to a person, the refresh token and any
    /// members of the grant's own.
    func response(for issuance: TokenIssuance) throws(OAuthError) -> TokenEndpointResponse {
        let grant = issuance.accessToken
        let accessToken = try accessToken(for: grant)
        var idToken: String?
        if let identity = issuance.identity, identity.scopes.contains("openid") {
            idToken = try self.idToken(for: identity, accessToken: accessToken)
        }
        return TokenEndpointResponse(
            accessToken: accessToken, expiresIn: Int(grant.expiresAt.timeIntervalSince(grant.issuedAt).rounded()),
            scopes: grant.scopes, refreshToken: issuance.refreshToken, idToken: idToken,
            tokenType: grant.confirmationKey == nil ? "Bearer" : "DPoP", additionalMembers: issuance.additionalMembers)
    }

    /// `at_hash` (OIDC Core §3.1.3.6): the left half of the access token's hash, with the hash
    /// of the ID token's algorithm: SHA-256 for RS256, PS256 and ES256, SHA-512 for EdDSA (Ed25519).
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
