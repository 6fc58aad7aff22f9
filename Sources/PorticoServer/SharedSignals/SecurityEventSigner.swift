import Foundation
import PorticoCrypto
import PorticoStore

/// Signs a ``SignalEvent`` as a Security Event Token (RFC 8417, SSF 1.0 §4): `iss`, `aud` (the
/// client id), `iat` and `jti` fixed at announcement, `txn`, `sub_id` (`iss_sub` with the `sub`
/// the app sees, pairwise where it is; the stream as `opaque` for verification) and one event;
/// with the key and algorithm of the client's ID tokens and `typ: secevent+jwt`. No `exp` and
/// no top-level `sub`, as RFC 8417 §2.2 and SSF ask.
struct SecurityEventSigner: Sendable {
    /// The provider's signing keys.
    let keys: KeyRing
    /// The provider's issuer.
    let issuer: IssuerIdentifier
    /// Works out pairwise subjects.
    let subjects: PairwiseSubjects

    /// The key ring has no signer for the client's algorithm (for a moment, during a revocation).
    struct MissingSigner: Error, CustomStringConvertible {
        let algorithm: SignatureAlgorithm
        var description: String { "no \(algorithm.rawValue) signing key" }
    }

    /// The signed SET of `event` for `client`, whose stream is `streamID`.
    func sign(_ event: SignalEvent, client: Client, streamID: String) throws -> String {
        let algorithm = SignatureAlgorithm(rawValue: client.idTokenSigningAlgorithm) ?? .rs256
        guard let key = keys.signer(for: algorithm) else { throw MissingSigner(algorithm: algorithm) }
        let issuer = issuer.current
        var claims = JWTClaims(issuer: issuer, audience: [client.id], issuedAt: event.issuedAt, jwtID: event.jti)
        if let userID = event.userID {
            claims["sub_id"] = [
                "format": "iss_sub", "iss": .string(issuer),
                "sub": .string(try subjects.subject(for: userID, client: client)),
            ]
        } else {
            claims["sub_id"] = ["format": "opaque", "id": .string(streamID)]
        }
        claims["txn"] = .string(event.transaction)
        claims["events"] = .object([event.event.rawValue: .object(event.fields)])
        return JWS.sign(claims: claims, key: key, type: SharedSignals.tokenType)
    }
}
