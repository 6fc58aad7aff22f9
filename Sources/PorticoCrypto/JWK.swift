import Foundation

/// A JSON Web Key (RFC 7517) for RSA, P-256 or Ed25519 keys, public or private.
///
/// Portico publishes public JWKs at `/oauth/jwks` and reads JWKs from test vectors and client
/// registrations. Members are optional strings exactly as they appear on the wire; conversion
/// into a usable key (with every check) happens in `VerificationKey(jwk:)` and
/// `SigningKey(jwk:)`. The single-letter members keep their RFC 7518 names.
public struct JWK: Codable, Sendable, Hashable {
    /// `kty`: "RSA", "EC" or "OKP".
    public var keyType: String
    /// `kid`: how tokens name this key; Portico uses the RFC 7638 thumbprint.
    public var keyID: String?
    /// `alg`: the only algorithm this key may be used with, when present.
    public var algorithm: String?
    /// `use`: "sig" for every key Portico publishes.
    public var use: String?
    /// `crv`: "P-256" or "Ed25519" for EC and OKP keys.
    public var curve: String?
    /// `x`: the EC x coordinate or the Ed25519 public key, base64url.
    public var x: String?
    /// `y`: the EC y coordinate, base64url.
    public var y: String?
    /// `n`: the RSA modulus, base64url big-endian.
    public var modulus: String?
    /// `e`: the RSA public exponent, base64url big-endian.
    public var exponent: String?
    /// `d`: the private exponent (RSA), private scalar (EC) or private key (Ed25519). Never published.
    public var d: String?
    /// `p`: the first RSA prime factor.
    public var p: String?
    /// `q`: the second RSA prime factor.
    public var q: String?
    /// `dp`: the first RSA CRT exponent.
    public var dp: String?
    /// `dq`: the second RSA CRT exponent.
    public var dq: String?
    /// `qi`: the RSA CRT coefficient.
    public var qi: String?

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
        case d
        case p
        case q
        case dp
        case dq
        case qi
    }

    /// A JWK from its members; pass only those the key type has.
    public init(
        keyType: String, keyID: String? = nil, algorithm: String? = nil, use: String? = nil, curve: String? = nil,
        x: String? = nil, y: String? = nil, modulus: String? = nil, exponent: String? = nil, d: String? = nil,
        p: String? = nil, q: String? = nil, dp: String? = nil, dq: String? = nil, qi: String? = nil
    ) {
        self.keyType = keyType
        self.keyID = keyID
        self.algorithm = algorithm
        self.use = use
        self.curve = curve
        self.x = x
        self.y = y
        self.modulus = modulus
        self.exponent = exponent
        self.d = d
        self.p = p
        self.q = q
        self.dp = dp
        self.dq = dq
        self.qi = qi
    }

    /// Decodes a JWK from its JSON text; unknown members are ignored, as RFC 7517 §4 asks.
    public init(json: String) throws {
        self = try JSONDecoder().decode(JWK.self, from: Data(json.utf8))
    }

    /// Whether this JWK holds private key material (`d`), and so must never be published.
    public var isPrivate: Bool { d != nil }

    /// This key without its private members, safe to publish.
    public var publicKey: JWK {
        var copy = self
        copy.d = nil
        copy.p = nil
        copy.q = nil
        copy.dp = nil
        copy.dq = nil
        copy.qi = nil
        return copy
    }

    /// The compact JSON text, members sorted, absent members omitted.
    public var jsonString: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a struct of optional strings cannot fail.
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// The RFC 7638 thumbprint: base64url(SHA-256) of the required public members in
    /// lexicographic order with no white space. Portico uses it as `kid`, so a key's id follows
    /// from the key itself and cannot collide with another key's.
    public func thumbprint() throws(KeyError) -> String {
        var writer = JSONWriter(capacity: 512)
        var first = true
        func required(_ name: String, _ value: String?) throws(KeyError) {
            guard let value else { throw .invalidJWK("missing \(name)") }
            writer.writeMember(name, .string(value), first: &first)
        }
        writer.append("{")
        switch keyType {
        case "RSA":
            try required("e", exponent)
            try required("kty", keyType)
            try required("n", modulus)
        case "EC":
            try required("crv", curve)
            try required("kty", keyType)
            try required("x", x)
            try required("y", y)
        case "OKP":
            try required("crv", curve)
            try required("kty", keyType)
            try required("x", x)
        default:
            throw .unsupportedKeyType(keyType)
        }
        writer.append("}")
        return Base64URL.encode(Digest.sha256.hash(writer.bytes))
    }
}
