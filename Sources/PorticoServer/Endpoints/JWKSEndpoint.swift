import PorticoHTTP

/// `GET /oauth/jwks`: the public keys of every published signing key (with `kid`, `alg`, `use`),
/// so relying parties and resource servers can verify ID tokens and access tokens.
///
/// The document is prebuilt by the ``KeyRing``; caches may keep it for a while, since keys are
/// published before they sign and stay published after they retire.
enum JWKSEndpoint {
    /// What clients and caches may assume about freshness.
    static let cacheControl = "public, max-age=600"

    /// Registers the route.
    static func register(on router: Router, context: ProviderContext) {
        router.get("/oauth/jwks") { _ in
            var response = Response.json(raw: context.keys.jwksJSON)
            response.headers["Cache-Control"] = cacheControl
            return response
        }
    }
}
