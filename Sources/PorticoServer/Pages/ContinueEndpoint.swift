import PorticoHTTP
import PorticoStore

/// `GET /continue` shows "Continue as …"; `POST /continue` continues or signs out ("Not you?").
///
/// It is shown for a "keep me signed in" session not yet confirmed in this browser run, and
/// whenever a public app would otherwise get a code from a remembered consent without a click
/// (``AuthorizationFlow/asksBeforeReplayingConsent(_:)``).
///
/// Continue marks the session confirmed for this browser run (``ReturnConfirmation``), slides
/// its expiry, and goes on with the request as the authorization endpoint would have: consent
/// if the app asks for something new, else straight back to the app. "Not you?" ends the
/// session (server side and cookie) and shows the sign-in page for the same request.
struct ContinueEndpoint: Sendable {
    /// The provider's store, keys and clock.
    let environment: PageEnvironment

    /// Adds `GET` and `POST /continue`, both async (they read the store).
    func register(on router: Router) {
        router.page(
            AuthorizationFlow.continuePath, environment: environment, show: { try show($0) }, submit: { try decide($0) }
        )
    }

    private func show(_ request: Request) throws -> Response {
        let seal = request.query[AuthorizationFlow.requestField]
        let pending = try AuthorizationFlow.pendingRequest(seal, environment: environment)
        let authorization = pending.request
        let client = pending.client
        guard let seal, let signedIn = try SignInSession.current(in: request, environment: environment),
            authorization.acceptsAuthentication(at: signedIn.session.authTime)
        else {
            return try AuthorizationFlow.redirect(
                to: AuthorizationFlow.loginPath, carrying: authorization, environment: environment, status: .found)
        }
        let keptSignedIn = ReturnConfirmation.isNeeded(for: signedIn, in: request, secure: environment.usesHTTPS)
        guard keptSignedIn || AuthorizationFlow.asksBeforeReplayingConsent(client) else {
            // Already confirmed (another tab, the back button): nothing to ask.
            return try AuthorizationFlow.next(
                for: authorization, client: client, signedIn: signedIn, environment: environment)
        }
        let (secret, cookie) = CSRFProtection.ensureSecret(in: request, secure: environment.usesHTTPS)
        let page = ContinuePage(
            client: client, user: signedIn.user, sealedRequest: seal,
            csrfToken: CSRFProtection.token(
                secret: secret,
                purpose: CSRFProtection.continuePurpose(
                    requestID: authorization.id, sessionHashedID: signedIn.session.hashedID)),
            language: request.pageLanguage(pending: authorization.language), keptSignedIn: keptSignedIn)
        var response = page.response()
        if let cookie { response.setCookie(cookie) }
        return response
    }

    private func decide(_ request: Request) throws -> Response {
        let decision: PostedDecision
        switch try PostedDecision.read(
            try request.pageForm(), request: request, environment: environment, purpose: CSRFProtection.continuePurpose)
        {
        case .signInAgain(let response): return response
        case .decided(let posted): decision = posted
        }
        let (authorization, client, signedIn) = (decision.authorization, decision.client, decision.signedIn)
        switch decision.value {
        case "continue":
            var response = try AuthorizationFlow.next(
                for: authorization, client: client, signedIn: signedIn, personActed: true, environment: environment,
                status: .seeOther)
            response.setCookie(ReturnConfirmation.cookie(for: signedIn, secure: environment.usesHTTPS))
            if let renewed = try SignInSession.keepAlive(signedIn, environment: environment) {
                response.setCookie(renewed)
            }
            return response
        case "switch":
            var response = try decision.switchAccount(request, environment: environment)
            response.setCookie(ReturnConfirmation.expiredCookie(secure: environment.usesHTTPS))
            return response
        default:
            throw PageProblem.malformedRequest(appName: client.name)
        }
    }
}
