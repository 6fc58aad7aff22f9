/// A public key ready to verify JWS signatures, bound to one algorithm and one `kid`.
///
/// Binding the algorithm to the key, not to the token, is what defeats algorithm confusion:
/// a token's `alg` header must name the key's algorithm, never choose how the key is used.
/// The OpenSSL key is parsed once here and shared; values are cheap to copy and safe to use
/// from any thread.
public struct VerificationKey: Sendable {
    /// The only algorithm this key verifies.
    public let algorithm: SignatureAlgorithm
    /// The `kid` tokens use to name this key.
    public let keyID: String
    /// The public JWK, with `kid`, `alg` and `use` filled in.
    public let jwk: JWK
    /// The parsed key, shared by every copy.
    let key: EVPKey

    init(key: EVPKey, keyID: String, jwk: JWK) {
        self.key = key
        self.algorithm = key.algorithm
        self.keyID = keyID
        self.jwk = jwk
    }

    /// Imports a JWK (public or private; only the public half is used). The key's algorithm
    /// follows from `kty` and `crv`; a JWK `alg` that names a different algorithm is refused,
    /// and `kid` defaults to the RFC 7638 thumbprint. RSA keys under 2048 bits are refused.
    public init(jwk: JWK) throws(KeyError) {
        let key = try EVPKey.fromJWK(jwk.publicKey)
        if let declared = jwk.algorithm, declared != key.algorithm.rawValue { throw .algorithmMismatch(declared) }
        var published = key.publicJWK()
        let keyID: String
        if let given = jwk.keyID { keyID = given } else { keyID = try published.thumbprint() }
        published.keyID = keyID
        published.algorithm = key.algorithm.rawValue
        published.use = "sig"
        self.init(key: key, keyID: keyID, jwk: published)
    }
}
