/// A credential public key given as COSE_Key parameters (RFC 9052 §7, RFC 9053 §2 and §7),
/// imported into OpenSSL and bound to its one algorithm.
///
/// The CBOR is read by the caller (with libcbor); this type takes the decoded labels so that
/// the crypto module stays free of any encoding. The import goes through the same checked path
/// as JWKs (on-curve check for P-256, RSA of at least 2048 bits), and the key's `alg` must
/// agree with its `kty` and `crv`, so a credential can never be verified with an algorithm
/// other than the one it was registered with.
public struct COSEKey: Sendable {
    /// COSE key type labels (`kty`, label 1).
    public enum KeyType: Int64, Sendable {
        /// Octet key pair (Ed25519).
        case okp = 1
        /// Elliptic curve with x and y (P-256).
        case ec2 = 2
        /// RSA.
        case rsa = 3
    }

    /// The algorithm every signature of this key is checked with.
    public let algorithm: COSEAlgorithm
    /// The parsed key.
    let key: EVPKey

    /// Imports a public key. `curve` is COSE's `crv` (1 = P-256, 6 = Ed25519); `x` and `y` are
    /// the curve coordinates (`x` alone for Ed25519); `modulus` and `exponent` are RSA's
    /// `n` and `e`. Members that do not belong to the key type must be nil.
    public init(
        algorithm: COSEAlgorithm, keyType: KeyType, curve: Int64? = nil, x: [UInt8]? = nil, y: [UInt8]? = nil,
        modulus: [UInt8]? = nil, exponent: [UInt8]? = nil
    ) throws(KeyError) {
        let jwk: JWK
        switch (algorithm, keyType) {
        case (.es256, .ec2):
            guard curve == 1 else { throw .unsupportedKeyType("COSE EC2 curve \(curve.map(String.init) ?? "none")") }
            guard let x, let y, x.count == 32, y.count == 32, modulus == nil, exponent == nil else {
                throw .invalidJWK("COSE EC2 key needs 32-byte x and y")
            }
            jwk = JWK(keyType: "EC", curve: "P-256", x: Base64URL.encode(x), y: Base64URL.encode(y))
        case (.edDSA, .okp):
            guard curve == 6 else { throw .unsupportedKeyType("COSE OKP curve \(curve.map(String.init) ?? "none")") }
            guard let x, x.count == 32, y == nil, modulus == nil, exponent == nil else {
                throw .invalidJWK("COSE OKP key needs a 32-byte x")
            }
            jwk = JWK(keyType: "OKP", curve: "Ed25519", x: Base64URL.encode(x))
        case (.rs256, .rsa):
            guard let modulus, let exponent, !modulus.isEmpty, !exponent.isEmpty, curve == nil, x == nil, y == nil
            else { throw .invalidJWK("COSE RSA key needs n and e") }
            jwk = JWK(keyType: "RSA", modulus: Base64URL.encode(modulus), exponent: Base64URL.encode(exponent))
        default:
            throw .algorithmMismatch("COSE alg \(algorithm.rawValue) with kty \(keyType.rawValue)")
        }
        let key = try EVPKey.fromJWK(jwk)
        guard key.algorithm == algorithm.signatureAlgorithm else { throw .algorithmMismatch("\(algorithm)") }
        self.algorithm = algorithm
        self.key = key
    }

    /// Whether `signature` is this key's signature of `message` in the form WebAuthn
    /// authenticators make it (§6.5.6): ASN.1 DER for ECDSA, PKCS#1 v1.5 for RSA, the 64 raw
    /// bytes for Ed25519.
    public func verify(signature: [UInt8], of message: [UInt8]) -> Bool {
        guard !signature.isEmpty, signature.count <= 1024 else { return false }
        return message.withUnsafeBytes { key.verify(encoded: signature, of: $0) }
    }
}
