import PorticoCrypto
import PorticoHTTP
import PorticoStore
import Synchronization

/// `GET /.well-known/openid-configuration` and `/.well-known/oauth-authorization-server`: the
/// provider metadata (OIDC Discovery 1.0 §3, RFC 8414 §2), one document at both paths.
///
/// Why built lazily and cached: the issuer is known only once the server has bound its port,
/// and `scopes_supported` includes product scopes that `portico scope add` may change in
/// another process at any time. So the first request builds the JSON, and later requests copy
/// the prepared response; it is rebuilt when the issuer changes or after ``rebuildInterval``,
/// which costs one store read per interval, not per request. Only endpoints that exist are
/// advertised.
final class DiscoveryEndpoint: Sendable {
    /// How long a built document is served before the product scopes are read again.
    static let rebuildInterval: Duration = .seconds(10)
    /// What clients and caches may assume about freshness.
    static let cacheControl = "public, max-age=300"

    private struct Built: Sendable {
        let issuer: String
        let builtAt: ContinuousClock.Instant
        let response: PreparedResponse
    }

    private let store: any Store
    private let issuer: IssuerIdentifier
    /// Whether every app must push its requests (`serve --require-par`).
    private let requiresPAR: Bool
    private let built = Mutex<Built?>(nil)

    /// The discovery endpoint of `issuer`, reading product scopes from `store`.
    init(store: any Store, issuer: IssuerIdentifier, requiresPAR: Bool = false) {
        self.requiresPAR = requiresPAR
        self.store = store
        self.issuer = issuer
    }

    /// Registers both well-known paths.
    func register(on router: Router) {
        router.get("/.well-known/openid-configuration", current: { [self] in response() })
        router.get("/.well-known/oauth-authorization-server", current: { [self] in response() })
    }

    /// The current document as a response, rebuilt when stale.
    func response() -> PreparedResponse {
        let issuer = issuer.current
        let now = ContinuousClock.now
        if let current = built.withLock({ $0 }), current.issuer == issuer,
            current.builtAt.duration(to: now) < Self.rebuildInterval
        {
            return current.response
        }
        var response = Response.json(raw: document(issuer: issuer).jsonString)
        response.headers["Cache-Control"] = Self.cacheControl
        let prepared = PreparedResponse(response)
        let fresh = Built(issuer: issuer, builtAt: now, response: prepared)
        built.withLock { $0 = fresh }
        return prepared
    }

    /// The metadata for `issuer`.
    func document(issuer: String) -> JSONValue {
        let clientAuthentication = ClientAuthenticationMethod.allCases.map { JSONValue.string($0.rawValue) }
        let confidentialAuthentication: [JSONValue] = [
            .string(ClientAuthenticationMethod.clientSecretBasic.rawValue),
            .string(ClientAuthenticationMethod.clientSecretPost.rawValue),
            .string(ClientAuthenticationMethod.privateKeyJWT.rawValue),
        ]
        let assertionAlgorithms = JSONValue.array(SignatureAlgorithm.allCases.map { .string($0.rawValue) })
        return [
            "issuer": .string(issuer),
            "authorization_endpoint": .string(issuer + "/oauth/authorize"),
            "token_endpoint": .string(issuer + TokenEndpoint.path),
            "userinfo_endpoint": .string(issuer + "/oauth/userinfo"),
            // Not a registered metadata name: Login with Amazon's profile endpoint, which answers
            // profile scopes without openid; PorticoKit reads it to fetch the user.
            "profile_endpoint": .string(issuer + ProfileEndpoint.path),
            "jwks_uri": .string(issuer + "/oauth/jwks"),
            "revocation_endpoint": .string(issuer + "/oauth/revoke"),
            "introspection_endpoint": .string(issuer + "/oauth/introspect"),
            "registration_endpoint": .string(issuer + RegistrationEndpoint.path),
            // A client_id may be the https URL of the client's metadata document
            // (``ClientMetadataDocuments``).
            "client_id_metadata_document_supported": true,
            "device_authorization_endpoint": .string(issuer + DeviceAuthorizationEndpoint.path),
            "end_session_endpoint": .string(issuer + LogoutEndpoint.path),
            // Portico's own: where a companion (portico-agent) brokers apps' authorization requests.
            "companion_authorization_endpoint": .string(issuer + CompanionAuthorizationEndpoint.path),
            "companion_consent_endpoint": .string(issuer + CompanionConsentEndpoint.path),
            "scopes_supported": .array(scopes().map(JSONValue.string)),
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "grant_types_supported": .array(TokenGrantRegistry.grantTypes.map(JSONValue.string)),
            "code_challenge_methods_supported": ["S256"],
            "dpop_signing_alg_values_supported": .array(DPoPProofChecker.algorithms.map { .string($0.rawValue) }),
            "token_endpoint_auth_methods_supported": .array(clientAuthentication),
            "revocation_endpoint_auth_methods_supported": .array(clientAuthentication),
            "introspection_endpoint_auth_methods_supported": .array(confidentialAuthentication),
            "token_endpoint_auth_signing_alg_values_supported": assertionAlgorithms,
            "revocation_endpoint_auth_signing_alg_values_supported": assertionAlgorithms,
            "introspection_endpoint_auth_signing_alg_values_supported": assertionAlgorithms,
            "subject_types_supported": ["public", "pairwise"],
            "native_sso_supported": true,
            "backchannel_logout_supported": true,
            "backchannel_logout_session_supported": true,
            "id_token_signing_alg_values_supported": .array(
                KeyRing.algorithms.map { JSONValue.string($0.rawValue) }),
            "userinfo_signing_alg_values_supported": ["none"],
            "claims_supported": .array(ScopeCatalog.claimsSupported.map(JSONValue.string)),
            "claims_parameter_supported": false,
            "ui_locales_supported": .array(PageLanguage.allCases.map { JSONValue.string($0.rawValue) }),
            // Signed request objects (RFC 9101) by value, at authorize and PAR; a request_uri is
            // only ever one of this server's pushed requests (RFC 9126), never fetched.
            "request_parameter_supported": true,
            "request_uri_parameter_supported": false,
            "request_object_signing_alg_values_supported": assertionAlgorithms,
            "pushed_authorization_request_endpoint": .string(issuer + PushedAuthorizationEndpoint.path),
            // serve --require-par for every app; client add --require-par for one.
            "require_pushed_authorization_requests": .bool(requiresPAR),
            "authorization_response_iss_parameter_supported": true,
        ]
    }

    /// Built-in and product scopes; the built-in ones alone if the store cannot be read now.
    private func scopes() -> [String] {
        do {
            return try store.read { try ScopeCatalog.supportedNames(in: $0) }
        } catch {
            OAuthEndpoint.logFailure(error)
            return ScopeCatalog.builtIn.map(\.name)
        }
    }
}
