import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// `POST /oauth/par`: pushed authorization requests (RFC 9126). A client sends its
/// authorization parameters over the back channel, authenticated, and gets a `request_uri` to
/// send the browser to `/oauth/authorize` with instead: the parameters never travel through the
/// browser, cannot be changed there, and are checked before the person sees a page.
///
/// The client authenticates exactly as at the token endpoint (``ClientAuthenticator``: a
/// secret, a `private_key_jwt` assertion, or a public client's `client_id`); the parameters, or
/// those of a signed `request` object (RFC 9101, ``RequestObjectVerifier``), are checked by the
/// same ``AuthorizationRequestValidator`` as at `/oauth/authorize`, and every failure is an RFC
/// 6749 §5.2 JSON error (§2.3). A DPoP proof sent here binds the code to its key (RFC 9449
/// §10.1), as `dpop_jkt` does; both at once must name the same key. What is stored is the
/// validated parameters under a hash of the `request_uri`'s random part, for ``lifetime``;
/// `/oauth/authorize` takes it once (``AuthorizationRequestSource``) and validates it again,
/// so that a client changed meanwhile is judged as it is now.
struct PushedAuthorizationEndpoint {
    /// The endpoint's path, advertised as `pushed_authorization_request_endpoint`.
    static let path = "/oauth/par"
    /// How long a `request_uri` works (RFC 9126 §2.2 suggests 5 to 600 seconds; one sign-in
    /// start needs a few).
    static let lifetime: TimeInterval = 60
    /// Parameters of client authentication, which are not authorization parameters.
    static let authenticationParameters: Set<String> = [
        "client_id", "client_secret", "client_assertion", "client_assertion_type",
    ]

    /// Where pushed requests and clients are kept.
    let store: any Store
    /// Client authentication, as at the token endpoint.
    let authenticator: ClientAuthenticator
    /// Verifies signed request objects.
    let requestObjects: RequestObjectVerifier
    /// Checks DPoP proofs.
    let proofs: DPoPProofChecker
    /// The clock.
    let now: @Sendable () -> Date

    /// Registers the route.
    func register(on router: Router, execution: RouteExecution) {
        execution.postAuthenticatingClients(Self.path, on: router) { request in handle(request) }
    }

    /// Answers one push; every failure is an RFC 6749 §5.2 JSON error and stores nothing.
    func handle(_ request: Request) -> Response {
        OAuthEndpoint.respond {
            let parameters = try OAuthParameters(formOf: request)
            let client = try authenticator.authenticate(request, parameters: parameters).client
            if parameters["request_uri"] != nil {
                throw OAuthError.invalidRequest("A pushed request may not carry request_uri (RFC 9126 §2.1).")
            }
            var pushed = try authorizationParameters(of: request, parameters: parameters, client: client)
            // FAPI 2.0 Security Profile §5.3.2.2: the redirect URI is always named, never implied.
            if client.securityProfile == .fapi2 && pushed["redirect_uri"] == nil {
                throw OAuthError.invalidRequest("This client's profile (FAPI 2.0) needs redirect_uri in every request.")
            }
            let proof = try checkedProof(of: request)
            try client.checkProfileAllows(proof)
            if let proof {
                if let named = pushed["dpop_jkt"] {
                    guard named == proof.keyThumbprint else {
                        throw OAuthError.invalidDPoPProof("dpop_jkt is not the thumbprint of the DPoP proof's key.")
                    }
                } else {
                    pushed = FormParameters(pushed.items + [("dpop_jkt", proof.keyThumbprint)])
                }
            }
            let validator = AuthorizationRequestValidator(store: store, now: now)
            switch try validator.validate(pushed, pushed: true) {
            case .page(let problem): throw Self.error(for: problem)
            case .redirect(let error, _, _):
                throw OAuthError(code: error.code, description: error.description, status: .badRequest)
            case .valid: break
            }
            let reference = SecureRandom.token()
            let record = PushedAuthorizationRequest(
                clientID: client.id, parameters: AuthorizationRequestSource.encode(pushed),
                expiresAt: now().addingTimeInterval(Self.lifetime))
            try store.transaction { transaction in
                if let proof, try !proof.recordFirstUse(in: transaction) {
                    throw OAuthError.invalidDPoPProof("The DPoP proof has been used before.")
                }
                try transaction.insertPushedRequest(record, reference: reference)
            }
            var response = OAuthEndpoint.json([
                "request_uri": .string(AuthorizationRequestSource.requestURIPrefix + reference),
                "expires_in": .integer(Int64(Self.lifetime)),
            ])
            response.status = .created
            if proof != nil { proofs.supplyNonce(in: &response) }
            return response
        }
    }

    /// The request's DPoP proof, checked for this endpoint; nil when it has none.
    private func checkedProof(of request: Request) throws(OAuthError) -> DPoPProof? {
        do {
            return try proofs.proof(of: request, path: Self.path)
        } catch {
            throw OAuthError.tokenEndpoint(error, nonce: proofs.currentNonce())
        }
    }

    /// The authorization parameters of the push, `client_id` first and the authenticated
    /// client's: those of the signed `request` object when there is one (the others are then
    /// ignored, RFC 9126 §3), else the form's own minus client authentication.
    private func authorizationParameters(of request: Request, parameters: OAuthParameters, client: Client) throws
        -> FormParameters
    {
        if let object = parameters["request"] {
            do {
                return try requestObjects.parameters(of: object, for: client)
            } catch {
                throw OAuthError(code: "invalid_request_object", description: error.description, status: .badRequest)
            }
        }
        let form = try OAuthParameters.form(of: request)
        let rest = form.items.filter { !$0.value.isEmpty && !Self.authenticationParameters.contains($0.name) }
        return FormParameters([("client_id", client.id)] + rest)
    }

    /// What a problem the authorization endpoint would show on a page is at this endpoint.
    private static func error(for problem: PageProblem) -> OAuthError {
        switch problem {
        case .unknownClient: .invalidClient("Client authentication failed.")
        case .suspendedClient: .invalidClient("This app is suspended by the platform's operator.")
        case .redirectNotRegistered: .invalidRequest("The redirect_uri is not registered for this client.")
        case .redirectMissing: .invalidRequest("Name a redirect_uri: this client has more than one registered.")
        case .redirectNotAllowed: .invalidRequest("This client may not use this redirect_uri.")
        default: .invalidRequest("The authorization request is not valid.")
        }
    }
}
