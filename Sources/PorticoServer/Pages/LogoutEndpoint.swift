import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// `GET,POST /oauth/logout`: RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0),
/// advertised as `end_session_endpoint`.
///
/// When to ask: spec §2 says the provider MUST ask the person unless a valid `id_token_hint`
/// shows the request belongs to the current session and person. So the session ends at once
/// when the hint's `sub` is the signed-in person and its `auth_time` is this session's sign-in
/// (``LogoutRequest/provesSession(_:)``); otherwise "Sign out of Portico?" is shown, and its
/// form (CSRF-checked, bound to the session) comes back here with `decision`. With nobody signed
/// in there is nothing to ask. Ending means deleting the server-side session and clearing the
/// session and confirmation cookies, "keep me signed in" included; then the browser goes to the
/// registered `post_logout_redirect_uri` with `state`, or sees "You are signed out".
struct LogoutEndpoint: Sendable {
    /// The endpoint's path.
    static let path = "/oauth/logout"

    /// The provider's store, keys and clock.
    let environment: PageEnvironment

    /// Adds `GET` and `POST` (async: they read the store), and refuses `HEAD`, which would
    /// otherwise run GET and sign someone out without showing anything.
    func register(on router: Router) {
        router.getAsync(Self.path) { request in
            await ErrorPage.guarding(request) { try respond(to: request.query, request: request) }
        }
        router.add(.head, Self.path) { _ in
            var response = Response.text("Use GET or POST.", status: .methodNotAllowed)
            response.headers["Allow"] = "GET, POST"
            return response
        }
        router.postAsync(Self.path) { request in
            await ErrorPage.guarding(request) { try respond(to: try request.pageForm(), request: request) }
        }
    }

    private func respond(to parameters: FormParameters, request: Request) throws -> Response {
        let status: HTTPStatus = request.method == .post ? .seeOther : .found
        let logout = try LogoutRequest.validate(parameters, environment: environment)
        guard let signedIn = try SignInSession.current(in: request, environment: environment) else {
            return try finish(logout, request: request, signedIn: nil, status: status)
        }
        let decisions = parameters.values(for: "decision")
        if request.method == .post && !decisions.isEmpty {
            let purpose = CSRFProtection.logoutPurpose(sessionHashedID: signedIn.session.hashedID)
            guard decisions.count == 1,
                CSRFProtection.verify(parameters, request: request, purpose: purpose, secure: environment.usesHTTPS)
            else {
                throw PageProblem.forgedForm(appName: logout.client?.name)
            }
            switch decisions[0] {
            case "logout":
                return try finish(logout, request: request, signedIn: signedIn, status: status)
            case "stay":
                return PageLayout.redirect(to: logout.redirectLocation ?? ReturnPath.fallback, status: status)
            default:
                throw PageProblem.malformedRequest(appName: logout.client?.name)
            }
        }
        if logout.provesSession(signedIn) {
            return try finish(logout, request: request, signedIn: signedIn, status: status)
        }
        let (secret, cookie) = CSRFProtection.ensureSecret(in: request, secure: environment.usesHTTPS)
        let token = CSRFProtection.token(
            secret: secret, purpose: CSRFProtection.logoutPurpose(sessionHashedID: signedIn.session.hashedID))
        var response = LogoutPage.confirm(
            logout, user: signedIn.user, csrfToken: token, language: request.pageLanguage(pending: logout.language))
        if let cookie { response.setCookie(cookie) }
        return response
    }

    /// Ends the browser's session (if any), clears its cookies, and goes where the app asked.
    private func finish(_ logout: LogoutRequest, request: Request, signedIn: SignInSession?, status: HTTPStatus)
        throws -> Response
    {
        let expired = try SignInSession.end(in: request, environment: environment)
        if let signedIn {
            let details: JSONValue = logout.client.map { ["client_id": .string($0.id)] } ?? [:]
            try environment.store.transaction { transaction in
                try transaction.append(
                    AuditEvent(
                        occurredAt: environment.now(), actor: signedIn.user.id, action: "session.logout",
                        subject: signedIn.user.id, details: details.jsonString))
            }
        }
        var response =
            logout.redirectLocation.map { PageLayout.redirect(to: $0, status: status) }
            ?? LogoutPage.signedOut(
                appName: logout.client?.name, language: request.pageLanguage(pending: logout.language))
        response.setCookie(expired)
        response.setCookie(ReturnConfirmation.expiredCookie(secure: environment.usesHTTPS))
        LoginStatus.signedOut(&response, environment: environment)
        return response
    }
}
