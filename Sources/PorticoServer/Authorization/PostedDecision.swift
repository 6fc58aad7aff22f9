import PorticoHTTP
import PorticoStore

/// The button a person pressed on a page of a pending authorization (consent, "Continue as",
/// device consent), read with the same checks on every one of them.
///
/// Why one type: each of these forms must carry a sealed pending request that is still valid, come
/// from a browser that is still signed in (else nothing is decided and the person signs in again
/// for the same request), pass a CSRF token bound to that request and session, and name exactly
/// one `decision`. Written once, no page can skip a step.
struct PostedDecision {
    /// The `decision` value of the button.
    let value: String
    /// The pending authorization the page belongs to.
    let authorization: AuthorizationRequest
    /// The app asking.
    let client: Client
    /// Who is signed in.
    let signedIn: SignInSession

    /// What reading the form came to.
    enum Outcome {
        /// A checked decision.
        case decided(PostedDecision)
        /// Signed out meanwhile (another tab, expiry): back to sign-in for the same request.
        case signInAgain(Response)
    }

    /// Reads the decision in `form`; `purpose` is the page's CSRF purpose for a request id and a
    /// session's hashed id, and `forDevice` says whether the page serves device sign-ins (the
    /// device consent) or app authorizations (consent, "Continue as"): the other kind is refused.
    ///
    /// - Throws: a ``PageProblem`` for a stale, foreign or wrong-kind request, a failed CSRF check,
    ///   or not exactly one decision.
    static func read(
        _ form: FormParameters, request: Request, environment: PageEnvironment, forDevice: Bool = false,
        purpose: (_ requestID: String, _ sessionHashedID: String) -> String
    ) throws -> Outcome {
        let pending = try AuthorizationFlow.pendingRequest(
            form[AuthorizationFlow.requestField], environment: environment)
        let authorization = pending.request
        let client = pending.client
        guard authorization.isDeviceSignIn == forDevice else { throw PageProblem.invalidRequest }
        guard let signedIn = try SignInSession.current(in: request, environment: environment) else {
            return .signInAgain(try signIn(again: authorization, environment: environment))
        }
        guard
            CSRFProtection.verify(
                form, request: request, purpose: purpose(authorization.id, signedIn.session.hashedID),
                secure: environment.usesHTTPS)
        else { throw PageProblem.forgedForm(appName: client.name) }
        let decisions = form.values(for: "decision")
        guard decisions.count == 1 else { throw PageProblem.malformedRequest(appName: client.name) }
        return .decided(
            PostedDecision(value: decisions[0], authorization: authorization, client: client, signedIn: signedIn))
    }

    /// The sign-in page for `authorization` again, after a form post.
    static func signIn(again authorization: AuthorizationRequest, environment: PageEnvironment) throws -> Response {
        try AuthorizationFlow.redirect(
            to: AuthorizationFlow.loginPath, carrying: authorization, environment: environment, status: .seeOther)
    }

    /// "Not you? Switch account": ends this browser's session and shows the sign-in page for the
    /// same request.
    func switchAccount(_ request: Request, environment: PageEnvironment) throws -> Response {
        let expired = try SignInSession.end(in: request, environment: environment)
        var response = try Self.signIn(again: authorization, environment: environment)
        response.setCookie(expired)
        LoginStatus.signedOut(&response, environment: environment)
        return response
    }
}
