import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// Signed authorization requests (JAR, RFC 9101): the `request` parameter, a JWS the client
/// signed with a key of its `--jwks`, whose claims are the authorization parameters.
///
/// What is checked: `typ` is `oauth-authz-req+jwt` (RFC 9101 §10.8 recommends explicit typing;
/// Portico requires it, as FAPI 2.0's message signing does, so that no other JWT the client
/// signs — a `private_key_jwt` assertion has the same `iss` and `aud` — can pass as a request);
/// the signature, with the client's registered keys and only their algorithms (never `none`
/// or HMAC, exactly as for client assertions, see ``ClientAssertionVerifier``); `iss` the
/// client's id; `aud` the issuer (one string, or a list that names it); `exp` present, in the
/// future and at most ``maximumLifetime`` away; `nbf`, when present, not in the future and at
/// most ``maximumLifetime`` old; a `client_id` claim, when present, the client's. The object
/// may not hold `request` or `request_uri` (§4). Parameters sent beside the object are ignored
/// (§6.3), except `client_id`, which named the client whose keys verify it.
struct RequestObjectVerifier: Sendable {
    /// The `typ` a request object must carry (RFC 9101 §4, §10.8).
    static let type = "oauth-authz-req+jwt"
    /// How long before `exp`, and how long after `nbf`, an object is accepted: an hour, as
    /// FAPI 2.0's message signing allows.
    static let maximumLifetime: TimeInterval = 60 * 60
    /// Clock difference tolerated between the client and the provider.
    static let clockSkew: TimeInterval = 30
    /// Claims that describe the object itself, not the authorization request.
    static let envelopeClaims: Set<String> = ["iss", "aud", "exp", "nbf", "iat", "jti", "sub"]

    /// Why an object was refused: always `invalid_request_object` (RFC 9101 §7), with words
    /// for the client's developer.
    struct Problem: Error, Equatable {
        /// What is wrong.
        let description: String
    }

    /// The issuer identifier, `aud` of every object.
    let issuer: IssuerIdentifier
    /// The clock.
    let now: @Sendable () -> Date
    /// The clients' parsed keys, shared with client authentication.
    let keySets: ClientKeySetCache

    /// The authorization parameters `object` carries for `client`, with `client_id` set.
    func parameters(of object: String, for client: Client) throws(Problem) -> FormParameters {
        guard let keySet = keySets.keySet(of: client, keyID: ClientKeySetCache.keyID(ofCompactJWS: object)) else {
            throw Problem(description: "This client has no registered keys (--jwks) to verify a request object.")
        }
        let verified: VerifiedJWS
        let claims: JWTClaims
        do {
            verified = try JWSVerifier(keys: keySet.keys).verify(
                object, algorithms: client.permittedAlgorithms(keySet.algorithms), type: Self.type)
            claims = try verified.claims()
        } catch .wrongType {
            throw Problem(description: "The request object's typ must be \(Self.type).")
        } catch {
            throw Problem(description: "The request object is not signed with a key of this client.")
        }
        try check(claims, clientID: client.id)
        var pairs: [(name: String, value: String)] = [("client_id", client.id)]
        for (name, value) in claims.additionalClaims.sorted(by: { $0.key < $1.key }) {
            if name == "client_id" || Self.envelopeClaims.contains(name) { continue }
            if name == "request" || name == "request_uri" {
                throw Problem(description: "A request object may not hold \(name).")
            }
            switch value {
            case .null: continue
            case .string(let text): pairs.append((name, text))
            case .integer(let number): pairs.append((name, String(number)))
            case .bool(let flag): pairs.append((name, flag ? "true" : "false"))
            default: pairs.append((name, value.jsonString))
            }
        }
        return FormParameters(pairs)
    }

    private func check(_ claims: JWTClaims, clientID: String) throws(Problem) {
        guard claims.issuer == clientID else {
            throw Problem(description: "The request object's iss must be the client_id.")
        }
        if let named = claims["client_id"], named.stringValue != clientID {
            throw Problem(description: "The request object's client_id is not the client's.")
        }
        guard claims.audience.contains(issuer.current) else {
            throw Problem(description: "The request object's aud must be the issuer, \(issuer.current).")
        }
        let instant = now()
        guard let expiresAt = claims.expiresAt else { throw Problem(description: "The request object has no exp.") }
        guard expiresAt > instant.addingTimeInterval(-Self.clockSkew) else {
            throw Problem(description: "The request object has expired.")
        }
        guard expiresAt <= instant.addingTimeInterval(Self.maximumLifetime + Self.clockSkew) else {
            throw Problem(description: "The request object's exp may be at most an hour away.")
        }
        if let notBefore = claims.notBefore {
            guard notBefore <= instant.addingTimeInterval(Self.clockSkew) else {
                throw Problem(description: "The request object is not valid yet (nbf).")
            }
            guard notBefore >= instant.addingTimeInterval(-Self.maximumLifetime - Self.clockSkew) else {
                throw Problem(description: "The request object's nbf is more than an hour ago.")
            }
        }
    }
}
