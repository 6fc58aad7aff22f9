import Synchronization

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
/// Bounded: past ``capacity`` distinct headers the cache starts again empty, so a client
/// sending a new key with every request costs what it would cost without the cache and no
/// more memory. Shared by the threads of a node; the lock is held only for a lookup or an
/// insert, never while a key is made.
public final class EmbeddedKeyCache: Sendable {
    /// How many distinct headers are kept before the cache is emptied.
    public let capacity: Int
    private let keys = Mutex<[String: VerificationKey]>([:])

    /// An empty cache that keeps at most `capacity` keys.
    public init(capacity: Int = 4096) {
        self.capacity = max(1, capacity)
    }

    /// How many keys are cached now.
    public var count: Int {
        keys.withLock { $0.count }
    }

    /// The key cached for the encoded header `header`, or the one `make` builds (then cached).
    /// A header whose key `make` refuses is not cached, so it is refused again each time.
    func key(
        forHeader header: Substring, orMake make: () throws(JOSEError) -> VerificationKey
    ) throws(JOSEError) -> VerificationKey {
        let text = String(header)
        if let cached = keys.withLock({ $0[text] }) { return cached }
        let key = try make()
        keys.withLock { cache in
            if cache.count >= capacity { cache.removeAll(keepingCapacity: true) }
            cache[text] = key
        }
        return key
    }
}
