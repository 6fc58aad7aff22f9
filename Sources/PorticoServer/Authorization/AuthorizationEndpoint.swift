import PorticoHTTP

/// `GET,POST /oauth/authorize`: the authorization endpoint (RFC 6749 §3.1, OAuth 2.1 §4.1.1,
/// OpenID Connect Core §3.1.2).
///
/// It validates the request (see ``AuthorizationRequestValidator``), then hands it to
/// ``AuthorizationFlow``: straight back to the app with a code when the person is signed in
/// and has already consented, else on to the sign-in or consent page with the request sealed.
enum AuthorizationEndpoint {
    /// The endpoint's path.
    static let path = "/oauth/authorize"

    /// Adds `GET` and `POST` on ``path``; both run off the HTTP threads (they read the store).
    static func register(on router: Router, environment: PageEnvironment) {
        router.getAsync(path) { request in
            await ErrorPage.guarding(request) {
                try respond(to: request.query, request: request, environment: environment)
            }
        }
        // HEAD would otherwise run GET and could mint a code into a Location header nobody reads.
        router.add(.head, path) { _ in
            var response = Response.text("Use GET or POST.", status: .methodNotAllowed)
            response.headers["Allow"] = "GET, POST"
            return response
        }
        router.postAsync(path) { request in
            await ErrorPage.guarding(request) {
                let form = try request.pageForm()
                return try respond(to: form, request: request, environment: environment)
            }
        }
    }

    private static func respond(to incoming: FormParameters, request: Request, environment: PageEnvironment) throws
        -> Response
    {
        // A client_id that is a document's URL: its row made or refreshed first, or the page
        // says why not (never a redirect: no redirect URI of it can be trusted).
        let clientIDs = incoming.values(for: "client_id")
        if clientIDs.count == 1, let clientID = clientIDs.first, ClientMetadataDocuments.isDocumentURL(clientID) {
            do {
                try environment.clientMetadataDocuments.refresh(clientID)
            } catch {
                let language = PageLanguage.preferred(uiLocales: incoming["ui_locales"])
                return ErrorPage.response(
                    for: .unusableClientMetadata(reason: error.reason),
                    language: request.pageLanguage(pending: language))
            }
        }
        let validator = AuthorizationRequestValidator(
            store: environment.store, now: environment.now, requiresPAR: environment.requiresPAR)
        let source = AuthorizationRequestSource(
            store: environment.store, now: environment.now, requestObjects: environment.requestObjects)
        let parameters: FormParameters
        let outcome: AuthorizationRequestValidator.Outcome
        switch try source.resolve(incoming) {
        case .parameters(let resolved, let pushed):
            parameters = resolved
            outcome = try validator.validate(resolved, pushed: pushed)
        case .page(let problem):
            parameters = incoming
            outcome = .page(problem)
        case .invalidRequestObject(let problem):
            // Sent back only to a redirect URI the client registered, as any other error.
            parameters = incoming
            let outside = FormParameters(
                incoming.filter { ["client_id", "redirect_uri", "state"].contains($0.name) }.map { ($0.name, $0.value) }
            )
            switch try validator.validate(outside) {
            case .page(let page): outcome = .page(page)
            case .redirect(_, let redirectURI, let state):
                outcome = .redirect(.invalidRequestObject(problem.description), redirectURI: redirectURI, state: state)
            case .valid:
                // Not reached: without response_type the outside parameters never validate.
                outcome = .page(.malformedRequest(appName: nil))
            }
        }
        switch outcome {
        case .page(let problem):
            let language = PageLanguage.preferred(uiLocales: parameters["ui_locales"])
            return ErrorPage.response(for: problem, language: request.pageLanguage(pending: language))
        case .redirect(let error, let redirectURI, let state):
            return AuthorizationResponse.failure(
                error, redirectURI: redirectURI, state: state, issuer: environment.issuer,
                status: request.method == .post ? .seeOther : .found)
        case .valid(let authorization, let client):
            let signedIn = try SignInSession.current(in: request, environment: environment)
            let mustConfirm =
                signedIn.map { ReturnConfirmation.isNeeded(for: $0, in: request, secure: environment.usesHTTPS) }
                ?? false
            var response = try AuthorizationFlow.next(
                for: authorization, client: client, signedIn: signedIn, mustSignIn: authorization.forcesLogin,
                mustConfirm: mustConfirm, environment: environment, status: request.method == .post ? .seeOther : .found
            )
            // A session that was used (not one waiting for "Continue" or a new password) slides.
            if let signedIn, !mustConfirm, !authorization.forcesLogin,
                authorization.acceptsAuthentication(at: signedIn.session.authTime),
                let renewed = try SignInSession.keepAlive(signedIn, environment: environment)
            {
                response.setCookie(renewed)
            }
            return response
        }
    }
}
