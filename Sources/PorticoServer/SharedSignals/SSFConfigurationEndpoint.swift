import PorticoCrypto
import PorticoHTTP

/// `GET /.well-known/ssf-configuration` (SSF 1.0 §7): the transmitter's metadata, naming the
/// endpoints a receiver manages its stream at. CPU only: built from the issuer per request
/// (the issuer may change once the port is bound), on the epoll thread.
struct SSFConfigurationEndpoint: Sendable {
    /// The provider's issuer.
    let issuer: IssuerIdentifier

    /// Registers the well-known path.
    func register(on router: Router) {
        router.get("/.well-known/ssf-configuration") { _ in
            var response = Response.json(raw: document(issuer: issuer.current).jsonString)
            response.headers["Cache-Control"] = "public, max-age=300"
            return response
        }
    }

    /// The metadata for `issuer`.
    func document(issuer: String) -> JSONValue {
        [
            "spec_version": "1_0",
            "issuer": .string(issuer),
            "jwks_uri": .string(issuer + "/oauth/jwks"),
            "delivery_methods_supported": [.string(SharedSignals.pushMethod), .string(SharedSignals.pollMethod)],
            "configuration_endpoint": .string(issuer + SharedSignals.configurationPath),
            "status_endpoint": .string(issuer + SharedSignals.statusPath),
            "add_subject_endpoint": .string(issuer + SharedSignals.addSubjectPath),
            "remove_subject_endpoint": .string(issuer + SharedSignals.removeSubjectPath),
            "verification_endpoint": .string(issuer + SharedSignals.verificationPath),
            "critical_subject_members": ["iss", "sub"],
            "authorization_schemes": [["spec_urn": "urn:ietf:rfc:6749"]],
            "default_subjects": "ALL",
        ]
    }
}
