import PorticoCrypto
import PorticoHTTP

/// `GET,POST /oauth/userinfo` (OIDC Core §5.3): the claims about the person that the access
/// token's scopes release. Needs `openid`; the token comes in `Authorization: Bearer` or, by
/// POST, as the `access_token` form parameter.
struct UserInfoEndpoint {
    /// The gate every resource endpoint shares.
    let resource: ProtectedResource

    /// Registers both methods.
    func register(on router: Router, execution: RouteExecution) {
        execution.get("/oauth/userinfo", on: router) { request in handle(request) }
        execution.post("/oauth/userinfo", on: router) { request in handle(request) }
    }

    /// Answers one request.
    func handle(_ request: Request) -> Response {
        OAuthEndpoint.respond {
            let token = try ProtectedResource.bearerToken(in: request, formParameter: true)
            let (verified, user) = try resource.admit(token, acceptedScopes: ["openid"], challengeScope: "openid")
            // `sub` as the token says: the account id, or the client's pairwise subject.
            var claims = UserClaims.released(about: user, scopes: verified.scopes, subject: verified.subject)
            claims["sub"] = .string(verified.subject)
            return OAuthEndpoint.json(claims)
        }
    }
}
