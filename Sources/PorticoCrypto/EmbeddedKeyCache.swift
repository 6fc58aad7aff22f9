/// The public keys of recently verified embedded-key JWS headers (DPoP proofs), by the
/// header's encoded text.
///
/// Why: an app signs every DPoP proof with the same key, so every proof from one installation
/// has the very same protected header (`typ`, `alg`, `jwk`; the per-proof `jti`, `iat` and
/// `ath` are claims). Turning that header's JWK into an OpenSSL key — JSON decoding, point
/// decoding and the curve check — costs about as much again as the ES256 verification itself,
/// and it is the same work for every proof. Identical header text means an identical key, so
/// the key is looked up by the text and each proof still gets its own signature check.
///
/// Bounded (``BoundedCache``): a client sending a new key with every request costs what it
/// would cost without the cache and no more memory.
public typealias EmbeddedKeyCache = BoundedCache<String, VerificationKey>

extension BoundedCache where Key == String, Value == VerificationKey {
    /// The key cached for the encoded header `header`, or the one `make` builds (then cached).
    /// A header whose key `make` refuses is not cached, so it is refused again each time.
    func key(
        forHeader header: Substring, orMake make: () throws(JOSEError) -> VerificationKey
    ) throws(JOSEError) -> VerificationKey {
        try value(for: String(header), orMake: make)
    }
}
