import PorticoCrypto
import PorticoHTTP

/// `GET /user/profile`: the profile in Login with Amazon's shape — `user_id`, `name`, `email`,
/// `postal_code` — with only what the token's scopes release (`profile:user_id` gives just
/// `user_id`).
struct ProfileEndpoint {
    /// The fields this endpoint ever returns.
    static let fields: Set<String> = ["user_id", "name", "email", "postal_code"]
    /// The endpoint's path, as Login with Amazon has it.
    static let path = "/user/profile"

    /// The scopes that open it.
    static let acceptedScopes: Set<String> = ["profile", "profile:user_id", "postal_code"]

    /// The gate every resource endpoint shares.
    let resource: ProtectedResource

    /// Registers the route.
    func register(on router: Router, execution: RouteExecution) {
        execution.get(Self.path, on: router) { request in handle(request) }
    }

    /// Answers one request.
    func handle(_ request: Request) -> Response {
        OAuthEndpoint.respond {
            let token = try ProtectedResource.bearerToken(in: request, formParameter: false)
            let (verified, user) = try resource.admit(
                token, acceptedScopes: Self.acceptedScopes, challengeScope: "profile")
            let claims = UserClaims.released(about: user, scopes: verified.scopes, subject: verified.subject).filter {
                Self.fields.contains($0.key)
            }
            return OAuthEndpoint.json(claims)
        }
    }
}
