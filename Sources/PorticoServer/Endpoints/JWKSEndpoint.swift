import PorticoHTTP
import Synchronization

/// `GET /oauth/jwks`: the public keys of every published signing key (with `kid`, `alg`, `use`),
/// so relying parties and resource servers can verify ID tokens and access tokens.
///
/// The document is prebuilt by the ``KeyRing``; caches may keep it for a while, since keys are
/// published before they sign and stay published after they retire.
public enum JWKSEndpoint {
    /// How long (seconds) clients and caches may keep the document; a rotated key is published
    /// at least this long before it signs (``SigningKeyRotation/publicationDelay``).
    public static let cacheLifetime = 600

    /// What clients and caches may assume about freshness.
    static let cacheControl = "public, max-age=\(cacheLifetime)"

    /// Registers the route.
    static func register(on router: Router, keys: KeyRing) {
        // The document changes only when keys are rotated (`KeyRing.reload()`); keep it prepared
        // and rebuild it when the key ring hands out a different document.
        let cache = Mutex<(json: String, response: PreparedResponse)?>(nil)
        router.get(
            "/oauth/jwks",
            current: {
                let json = keys.jwksJSON
                if let cached = cache.withLock({ $0 }), cached.json == json { return cached.response }
                var response = Response.json(raw: json)
                response.headers["Cache-Control"] = cacheControl
                let prepared = PreparedResponse(response)
                cache.withLock { $0 = (json, prepared) }
                return prepared
            })
    }
}
