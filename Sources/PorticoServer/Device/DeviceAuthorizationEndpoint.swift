import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// `POST /oauth/device_authorization` (RFC 8628 §3.1–3.2) and its Login with Amazon twin
/// `POST /auth/o2/create/codepair`: a TV or console asks for a device code to poll with and a
/// user code for the person to type at `/device`.
///
/// Both paths run the same checks — the client authenticates as at the token endpoint (public
/// clients by `client_id`, confidential ones with their secret), must be registered for the
/// device grant, and may ask only for scopes it is allowed — and store the same
/// ``DeviceAuthorization``; only the request's extra field and the answer's members differ, so
/// an app written against Login with Amazon can switch by changing its base URL.
struct DeviceAuthorizationEndpoint {
    /// The RFC 8628 path, advertised as `device_authorization_endpoint`.
    static let path = "/oauth/device_authorization"
    /// Login with Amazon's code-pair path.
    static let amazonPath = "/auth/o2/create/codepair"
    /// Where people enter the code.
    static let verificationPath = "/device"
    /// How often to draw another user code when the one drawn is taken by a live authorization.
    static let maximumCodeAttempts = 5

    /// Which dialect a request speaks.
    enum Dialect {
        /// RFC 8628.
        case standard
        /// Login with Amazon's code pair: `response_type=device_code`, and an answer without
        /// `verification_uri_complete`.
        case amazon
    }

    /// Where device authorizations are kept.
    let store: any Store
    /// Client authentication, as at the token endpoint.
    let authenticator: ClientAuthenticator
    /// How long the codes work and how often a device polls.
    let lifetimes: TokenLifetimes
    /// The clock.
    let now: @Sendable () -> Date
    /// The verification URI is the issuer's.
    let issuer: IssuerIdentifier

    /// Registers both paths.
    func register(on router: Router, execution: RouteExecution) {
        execution.postAuthenticatingClients(Self.path, on: router) { request in handle(request, dialect: .standard) }
        execution.postAuthenticatingClients(Self.amazonPath, on: router) { request in
            handle(request, dialect: .amazon)
        }
    }

    /// Answers one request; every failure is an RFC 6749 §5.2 JSON error.
    func handle(_ request: Request, dialect: Dialect) -> Response {
        OAuthEndpoint.respond {
            let parameters = try OAuthParameters(formOf: request)
            if dialect == .amazon {
                let responseType = try parameters.required("response_type")
                guard responseType == "device_code" else {
                    throw OAuthError(
                        code: "unsupported_response_type", description: "The response_type must be device_code.",
                        status: .badRequest)
                }
            }
            let client = try authenticator.authenticate(request, parameters: parameters)
            guard client.client.allowedGrantTypes.contains(DeviceCodeGrant.grantType) else {
                throw OAuthError.unauthorizedClient("This client is not registered for device login.")
            }
            let scopes = try RequestedScopes.validated(parameters["scope"], for: client.client, in: store)
            let (deviceCode, userCode) = try start(for: client.client, scopes: scopes)
            return answer(deviceCode: deviceCode, userCode: userCode, dialect: dialect)
        }
    }

    /// Stores a pending authorization and returns its device code and user code.
    private func start(for client: Client, scopes: [String]) throws -> (String, String) {
        let now = now()
        let deviceCode = SecureRandom.token()
        for _ in 0..<Self.maximumCodeAttempts {
            let userCode = UserCode.generate()
            let authorization = DeviceAuthorization(
                deviceCode: deviceCode, userCode: userCode, clientID: client.id, scopes: scopes, createdAt: now,
                expiresAt: now.addingTimeInterval(lifetimes.deviceCode),
                interval: lifetimes.devicePollInterval)
            do {
                try store.transaction { try DevicePollPolicy().start(authorization, in: $0) }
                return (deviceCode, userCode)
            } catch StoreError.duplicate(field: "user_code") {
                continue
            }
        }
        // Twenty-six billion codes and a handful live: this happens only if something is broken.
        throw OAuthError.serverError()
    }

    private func answer(deviceCode: String, userCode: String, dialect: Dialect) -> Response {
        let verificationURI = issuer.current + Self.verificationPath
        let shown = UserCode.formatted(userCode)
        var members: [String: JSONValue] = [
            "device_code": .string(deviceCode), "user_code": .string(shown),
            "verification_uri": .string(verificationURI),
            "expires_in": .integer(Int64(lifetimes.deviceCode)),
            "interval": .integer(Int64(lifetimes.devicePollInterval)),
        ]
        if dialect == .standard {
            members["verification_uri_complete"] = .string(
                AuthorizationResponse.location(verificationURI, [("user_code", shown)]))
        }
        return OAuthEndpoint.json(members)
    }
}
