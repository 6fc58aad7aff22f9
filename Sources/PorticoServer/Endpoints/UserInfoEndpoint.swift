import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// `GET,POST /oauth/userinfo` (OIDC Core §5.3): the claims about the person that the access
/// token's scopes release. Needs `openid`; the token comes in `Authorization: Bearer` or, by
/// POST, as the `access_token` form parameter.
struct UserInfoEndpoint {
    /// The gate every resource endpoint shares.
    let resource: ProtectedResource

    /// Registers both methods; with a standing cache, a token whose standing is in memory is
    /// answered on the epoll thread and only the others wait for the worker pool.
    func register(on router: Router, execution: RouteExecution) {
        for method in [HTTPMethod.get, .post] {
            execution.add(
                method, "/oauth/userinfo", on: router, immediate: { request in answerFromMemory(request) },
                { request in handle(request) })
        }
    }

    /// Answers one request.
    func handle(_ request: Request) -> Response {
        resource.supplyingNonce(
            OAuthEndpoint.respond {
                Self.claims(
                    try resource.admit(
                        request, formParameter: true, acceptedScopes: ["openid"], challengeScope: "openid"))
            }, to: request)
    }

    /// The answer when it needs no store (the token's standing in memory, or a token that fails
    /// by itself); nil hands the request to ``handle(_:)``.
    func answerFromMemory(_ request: Request) -> Response? {
        resource.answerFromMemory(
            request, formParameter: true, acceptedScopes: ["openid"], challengeScope: "openid", render: Self.claims)
    }

    /// The claims the token's scopes release, `sub` as the token says: the account id, or the
    /// client's pairwise subject.
    private static func claims(_ admitted: (VerifiedAccessToken, UserRecord)) -> Response {
        let (verified, user) = admitted
        var claims = UserClaims.released(about: user, scopes: verified.scopes, subject: verified.subject)
        claims["sub"] = .string(verified.subject)
        return OAuthEndpoint.json(claims)
    }
}
