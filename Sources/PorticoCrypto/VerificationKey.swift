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
    /// follows from `kty` and `crv` (RS256 for RSA) unless the JWK's `alg` names another the key
    /// can do (PS256 for RSA); an `alg` the key cannot do is refused, and `kid` defaults to the
    /// RFC 7638 thumbprint. RSA keys under 2048 bits are refused.
    public init(jwk: JWK) throws(KeyError) {
        try self.init(key: EVPKey.fromJWK(jwk.publicKey).using(declared: jwk.algorithm), keyID: jwk.keyID)
    }

    /// The key bound to `key`'s algorithm, published with `keyID` or its thumbprint.
    private init(key: EVPKey, keyID given: String?) throws(KeyError) {
        var published = key.publicJWK()
        let keyID: String
        if let given { keyID = given } else { keyID = try published.thumbprint() }
        published.keyID = keyID
        published.algorithm = key.algorithm.rawValue
        published.use = "sig"
        self.init(key: key, keyID: keyID, jwk: published)
    }

    /// Every key `jwk` verifies with, one per algorithm: the one its `alg` names, or, for an RSA
    /// JWK that names none, both RS256 and PS256 (one parsed key shared by the two), since
    /// RFC 7517 §4.4 leaves `alg` optional and such a key is the client's for either. Each
    /// still verifies only its own algorithm, so a token's header picks between them and never
    /// changes how one is used.
    public static func keys(for jwk: JWK) throws(KeyError) -> [VerificationKey] {
        let key = try VerificationKey(jwk: jwk)
        guard jwk.algorithm == nil, key.algorithm == .rs256 else { return [key] }
        return [key, try key.using(.ps256)]
    }

    /// This key used with `algorithm` (same `kid`), for a JWK without `alg`; throws when the
    /// key type cannot do it.
    func using(_ algorithm: SignatureAlgorithm) throws(KeyError) -> VerificationKey {
        guard algorithm != self.algorithm else { return self }
        var published = jwk
        published.algorithm = algorithm.rawValue
        return VerificationKey(key: try key.using(algorithm), keyID: keyID, jwk: published)
    }
}
