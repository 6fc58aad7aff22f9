import Foundation

extension Provider {
    /// Reads the provider's metadata from `issuer/.well-known/openid-configuration` (OpenID
    /// Connect Discovery; RFC 8414 documents share the fields).
    ///
    /// The document's `issuer` must equal `issuer` exactly (Discovery §4.3), or a look-alike
    /// could hand out another provider's endpoints. Besides the standard fields it reads
    /// Portico's `profile_endpoint`; a document that lists the LWA claim `user_id` without one
    /// is taken to serve the LWA profile at `issuer/user/profile`, as Portico does.
    public static func discover(issuer: URL) async throws(AuthorizationError) -> Provider {
        try await discover(issuer: issuer, http: .shared)
    }

    static func discover(issuer: URL, http: HTTPClient) async throws(AuthorizationError) -> Provider {
        let base =
            issuer.absoluteString.hasSuffix("/") ? String(issuer.absoluteString.dropLast()) : issuer.absoluteString
        guard let documentURL = URL(string: base + "/.well-known/openid-configuration"),
            issuer.scheme == "https" || issuer.scheme == "http"
        else { throw AuthorizationError(.invalidInput, "the issuer \(issuer) is not an http(s) URL") }
        let reply = try await http.get(documentURL)
        guard reply.status == 200 else { throw reply.failure("discovery") }
        guard let document = reply.jsonObject else {
            throw AuthorizationError(.invalidResponse, "the discovery document is not a JSON object")
        }
        return try Provider(discoveryDocument: document, expectedIssuer: base)
    }

    /// A provider from a parsed discovery document; throws when it names another issuer or
    /// lacks the endpoints every code flow needs.
    init(discoveryDocument document: [String: ProfileValue], expectedIssuer: String) throws(AuthorizationError) {
        guard let issuer = document["issuer"]?.stringValue else {
            throw AuthorizationError(.invalidResponse, "the discovery document has no issuer")
        }
        guard issuer == expectedIssuer || issuer == expectedIssuer + "/" else {
            throw AuthorizationError(.issuerMismatch, "the discovery document names the issuer \(issuer)")
        }
        func endpoint(_ name: String) throws(AuthorizationError) -> URL? {
            guard let text = document[name]?.stringValue else { return nil }
            guard let url = URL(string: text), url.scheme == "https" || url.scheme == "http" else {
                throw AuthorizationError(.invalidResponse, "the discovery document's \(name) is not a URL")
            }
            return url
        }
        guard let authorization = try endpoint("authorization_endpoint"), let token = try endpoint("token_endpoint")
        else {
            throw AuthorizationError(.invalidResponse, "the discovery document lacks the authorize or token endpoint")
        }
        let claims = document["claims_supported"]?.arrayValue?.compactMap(\.stringValue) ?? []
        var profile = try endpoint("profile_endpoint")
        if profile == nil, claims.contains("user_id") {
            profile = URL(string: expectedIssuer + "/user/profile")
        }
        let device = try endpoint("device_authorization_endpoint")
        self.init(
            issuer: issuer, authorizationEndpoint: authorization, tokenEndpoint: token,
            userInfoEndpoint: try endpoint("userinfo_endpoint"), profileEndpoint: profile,
            revocationEndpoint: try endpoint("revocation_endpoint"), jwksURI: try endpoint("jwks_uri"),
            deviceAuthorizationEndpoint: device, deviceCodeDialect: .standard,
            sendsIssuerInAuthorizationResponse: document["authorization_response_iss_parameter_supported"]?.boolValue
                ?? false,
            scopesSupported: document["scopes_supported"]?.arrayValue?.compactMap(\.stringValue) ?? [],
            endSessionEndpoint: try endpoint("end_session_endpoint"),
            dpopSigningAlgorithmsSupported: document["dpop_signing_alg_values_supported"]?.arrayValue?
                .compactMap(\.stringValue) ?? [],
            pushedAuthorizationRequestEndpoint: try endpoint("pushed_authorization_request_endpoint"),
            requiresPushedAuthorizationRequests: document["require_pushed_authorization_requests"]?.boolValue
                ?? false)
    }
}
