import PorticoCrypto
import PorticoHTTP
import PorticoStore

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

    /// Registers the route; like userinfo, a standing in memory is answered on the epoll thread.
    func register(on router: Router, execution: RouteExecution) {
        execution.add(
            .get, Self.path, on: router, immediate: { request in answerFromMemory(request) },
            { request in handle(request) })
    }

    /// Answers one request.
    func handle(_ request: Request) -> Response {
        resource.supplyingNonce(
            OAuthEndpoint.respond {
                Self.profile(
                    try resource.admit(
                        request, formParameter: false, acceptedScopes: Self.acceptedScopes, challengeScope: "profile"))
            }, to: request)
    }

    /// The answer when it needs no store; nil hands the request to ``handle(_:)``.
    func answerFromMemory(_ request: Request) -> Response? {
        resource.answerFromMemory(
            request, formParameter: false, acceptedScopes: Self.acceptedScopes, challengeScope: "profile",
            render: Self.profile)
    }

    private static func profile(_ admitted: (VerifiedAccessToken, UserRecord)) -> Response {
        let (verified, user) = admitted
        let claims = UserClaims.released(about: user, scopes: verified.scopes, subject: verified.subject).filter {
            fields.contains($0.key)
        }
        return OAuthEndpoint.json(claims)
    }
}
