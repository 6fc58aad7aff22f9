import Foundation
import PorticoCrypto
import PorticoStore

/// `private_key_jwt` client authentication (RFC 7523 §2.2 and §3, OpenID Connect Core §9): the
/// client proves who it is with a JWT it signed with a private key whose public half it
/// registered (`client add --jwks`), so no shared secret exists that the provider could leak.
///
/// What is checked, in order: the assertion type; the JWT's signature, with the keys of the
/// client its `iss` names and only the algorithms those keys have (never `none` or HMAC, which
/// ``SignatureAlgorithm`` does not have); `iss` and `sub` both the client's id (and `client_id`,
/// when sent, the same); `aud` one string, the issuer or the token endpoint's URL, never an
/// array (RFC 7523bis, OpenID's 2025 audience advisory: an assertion whose `aud` also names
/// another server can be replayed here by that server, so a list is refused whatever it holds;
/// the token endpoint's URL stays accepted as the single value because libraries such as
/// Authlib send it by default); `exp` present, in the
/// future and at most ``maximumLifetime`` away, so an assertion is short-lived by construction;
/// `nbf` and `iat` not in the future; and `jti` new — recorded until `exp`, so a replay of an
/// overheard assertion is refused on every node. Failures before the signature holds say only
/// "Client authentication failed.", like every other failed client authentication, so a caller
/// learns nothing about which client ids exist; after it, they name the claim at fault.
struct ClientAssertionVerifier: Sendable {
    /// The only assertion type (RFC 7523 §2.2).
    static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    /// The longest an assertion may live from now: five minutes, as most providers allow.
    static let maximumLifetime: TimeInterval = 5 * 60
    /// Clock difference tolerated between the client and the provider.
    static let clockSkew: TimeInterval = 30

    /// Where the seen `jti`s are kept.
    let store: any Store
    /// The issuer identifier, read when a request comes (it is set late on an ephemeral port).
    let issuer: @Sendable () -> String
    /// The clock.
    let now: @Sendable () -> Date
    /// The clients' parsed keys, shared by every request.
    var keySets = ClientKeySetCache()

    /// The client `assertion` authenticates, looked up with `lookUp`.
    func authenticate(
        type: String?, assertion: String?, clientID: String?, lookUp: (String) throws -> Client?
    ) throws -> Client {
        let failure = OAuthError.invalidClient("Client authentication failed.")
        guard let type, let assertion else {
            throw OAuthError.invalidRequest("Send client_assertion_type and client_assertion together.")
        }
        guard type == Self.assertionType else {
            throw OAuthError.invalidClient("The client_assertion_type must be \(Self.assertionType).")
        }
        // The unverified payload only says which client's keys to try.
        let parts = assertion.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(parts[1]),
            let unverified = try? JWTClaims(json: payload), let claimedID = unverified.issuer
        else { throw failure }
        if let clientID, clientID != claimedID {
            throw OAuthError.invalidClient("The client_id does not match the client assertion's iss.")
        }
        guard let client = try lookUp(claimedID), client.type == .confidential,
            let keySet = keySets.keySet(of: client, keyID: ClientKeySetCache.keyID(ofCompactJWS: assertion))
        else { throw failure }
        let claims: JWTClaims
        let audience: JSONValue?
        do {
            let verified = try JWSVerifier(keys: keySet.keys).verify(
                assertion, algorithms: client.permittedAlgorithms(keySet.algorithms))
            claims = try verified.claims()
            // `JWTClaims` reads a string and a list alike; whether it was one string matters here.
            audience = JSONValue(parsing: verified.payload)?.objectValue?["aud"]
        } catch {
            throw failure
        }
        try check(claims, audience: audience, clientID: client.id)
        return client
    }

    private func check(_ claims: JWTClaims, audience: JSONValue?, clientID: String) throws {
        guard claims.issuer == clientID, claims.subject == clientID else {
            throw OAuthError.invalidClient("The client assertion's iss and sub must both be the client_id.")
        }
        let issuer = issuer()
        // RFC 9126 §2: at the pushed authorization request endpoint its URL is an audience too.
        let audiences = [issuer, issuer + TokenEndpoint.path, issuer + PushedAuthorizationEndpoint.path]
        guard case .string(let named)? = audience, audiences.contains(named) else {
            throw OAuthError.invalidClient(
                "The client assertion's aud must be one string: the issuer or the token endpoint URL.")
        }
        let instant = now()
        guard let expiresAt = claims.expiresAt else {
            throw OAuthError.invalidClient("The client assertion has no exp.")
        }
        guard expiresAt <= instant.addingTimeInterval(Self.maximumLifetime + Self.clockSkew) else {
            throw OAuthError.invalidClient(
                "The client assertion lives too long; its exp may be at most \(Int(Self.maximumLifetime)) seconds away."
            )
        }
        do {
            try JWTValidator(clockSkew: Self.clockSkew, now: { instant }).validate(claims)
        } catch .expired {
            throw OAuthError.invalidClient("The client assertion has expired.")
        } catch {
            throw OAuthError.invalidClient("The client assertion is not valid yet.")
        }
        guard let jti = claims.jwtID, !jti.isEmpty, jti.utf8.count <= 256 else {
            throw OAuthError.invalidClient("The client assertion needs a jti (at most 256 bytes).")
        }
        let fresh = try store.transaction { transaction in
            try transaction.recordClientAssertion(
                clientID: clientID, jti: jti, expiresAt: expiresAt.addingTimeInterval(Self.clockSkew), now: instant)
        }
        guard fresh else { throw OAuthError.invalidClient("This client assertion was already used.") }
    }
}
