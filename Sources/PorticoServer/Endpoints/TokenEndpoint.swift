import PorticoHTTP

/// `POST /oauth/token`: exchanges a grant for tokens (RFC 6749 §3.2, OAuth 2.1 §3.2).
///
/// The endpoint itself only reads the form, authenticates the client and picks the grant; each
/// grant type lives in a file of its own and returns a ``TokenResponse``. It runs on the HTTP
/// threads (DESIGN: token signing is CPU work, SQLite transactions are short).
struct TokenEndpoint {
    /// The grant types this build implements, in the order discovery lists them.
    static let supportedGrantTypes = [
        "authorization_code", "refresh_token", "client_credentials", DeviceCodeGrant.grantType,
    ]
    /// Login with Amazon's token path, answered here too so LWA apps can switch by base URL.
    static let amazonPath = "/auth/o2/token"

    /// The provider.
    let context: ProviderContext

    /// Registers the route.
    func register(on router: Router) {
        router.post("/oauth/token") { request in handle(request) }
        router.post(Self.amazonPath) { request in handle(request) }
    }

    /// Answers one token request; never throws, every failure is an RFC 6749 §5.2 error.
    func handle(_ request: Request) -> Response {
        OAuthEndpoint.respond {
            let parameters = try OAuthParameters(formOf: request)
            let requestedGrantType = try parameters.required("grant_type")
            let client: AuthenticatedClient
            // Login with Amazon's device poll names neither the standard grant nor the client.
            let isAmazonDevicePoll = requestedGrantType == DeviceCodeGrant.amazonGrantType
            let grantType = isAmazonDevicePoll ? DeviceCodeGrant.grantType : requestedGrantType
            if isAmazonDevicePoll && request.headers["Authorization"] == nil && parameters["client_id"] == nil {
                client = try DeviceCodeGrant(context: context).client(namedBy: parameters)
            } else {
                client = try context.clientAuthenticator.authenticate(request, parameters: parameters)
            }
            guard Self.supportedGrantTypes.contains(grantType) else {
                throw OAuthError.unsupportedGrantType("The grant type is not supported.")
            }
            guard client.client.allowedGrantTypes.contains(grantType) else {
                throw OAuthError.unauthorizedClient("This client may not use the \(grantType) grant.")
            }
            switch grantType {
            case "authorization_code":
                return try AuthorizationCodeGrant(context: context).exchange(parameters, for: client).response()
            case "refresh_token":
                return try RefreshTokenGrant(context: context).exchange(parameters, for: client).response()
            case DeviceCodeGrant.grantType:
                if isAmazonDevicePoll { _ = try parameters.required("user_code") }
                return try DeviceCodeGrant(context: context).exchange(parameters, for: client).response()
            default:
                return try ClientCredentialsGrant(context: context).exchange(parameters, for: client).response()
            }
        }
    }
}
