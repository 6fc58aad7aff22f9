import Foundation

/// The public members of a JWK (RFC 7517) that ID-token verification needs, for RSA, P-256 and
/// Ed25519 keys; private members are never read.
struct JSONWebKey: Sendable, Hashable, Decodable {
    /// `kty`: `RSA`, `EC` or `OKP`.
    var keyType: String
    /// `kid`: how tokens name the key.
    var keyID: String?
    /// `alg`, when the provider pins the key to one algorithm.
    var algorithm: String?
    /// `use`: `sig` or `enc`; encryption keys never verify.
    var use: String?
    /// `crv`: `P-256` or `Ed25519`.
    var curve: String?
    /// The EC x coordinate or the Ed25519 public key, base64url.
    var x: String?
    /// The EC y coordinate, base64url.
    var y: String?
    /// The RSA modulus, base64url big-endian.
    var modulus: String?
    /// The RSA public exponent, base64url big-endian.
    var exponent: String?

    private enum CodingKeys: String, CodingKey {
        case keyType = "kty"
        case keyID = "kid"
        case algorithm = "alg"
        case use
        case curve = "crv"
        case x
        case y
        case modulus = "n"
        case exponent = "e"
    }

    /// The algorithms this key verifies, from `kty` and `crv`: an RSA key RS256 and PS256
    /// unless its `alg` names one of them, which it then verifies alone (so an RS256 key never
    /// checks a PS256 token, nor the reverse). Empty for keys the SDK cannot use (encryption
    /// keys, other curves, an `alg` that contradicts the key type).
    var signatureAlgorithms: [JWSAlgorithm] {
        guard use == nil || use == "sig" else { return [] }
        let implied: [JWSAlgorithm]
        switch (keyType, curve) {
        case ("RSA", _): implied = [.rs256, .ps256]
        case ("EC", "P-256"): implied = [.es256]
        case ("OKP", "Ed25519"): implied = [.edDSA]
        default: return []
        }
        guard let algorithm else { return implied }
        return implied.filter { $0.rawValue == algorithm }
    }
}

/// The JWS algorithms an ID token may be signed with: never `none`, never HMAC.
enum JWSAlgorithm: String, Sendable, CaseIterable {
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    case rs256 = "RS256"
    /// ECDSA P-256 with SHA-256; the signature is `r || s`, 64 bytes.
    case es256 = "ES256"
    /// Ed25519 (RFC 8037).
    case edDSA = "EdDSA"
    /// RSASSA-PSS with SHA-256, MGF1-SHA-256 and a 32-byte salt (RFC 7518 §3.5); FAPI 2.0's RSA.
    case ps256 = "PS256"
}

/// A JWK Set document: `{"keys": [...]}`; keys that do not decode are dropped, not fatal.
struct JSONWebKeySet: Decodable {
    var keys: [JSONWebKey]

    private enum CodingKeys: String, CodingKey { case keys }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let raw = try container.decode([ProfileValue].self, forKey: .keys)
        keys = raw.compactMap { value in
            guard let data = try? JSONEncoder().encode(value) else { return nil }
            return try? JSONDecoder().decode(JSONWebKey.self, from: data)
        }
    }
}
