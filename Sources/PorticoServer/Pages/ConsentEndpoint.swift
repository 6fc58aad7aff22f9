import PorticoHTTP
import PorticoStore

/// `GET /consent` shows what the app asks for; `POST /consent` records the decision.
///
/// Allow grants the scopes (merged into what the person granted this app before) and sends a
/// code to the app; Cancel sends `access_denied`; Switch account signs out and goes back to the
/// sign-in page for the same request. Consent is asked only for scopes not yet granted, unless
/// the app sent `prompt=consent`.
struct ConsentEndpoint: Sendable {
    /// The provider's store, keys and clock.
    let environment: PageEnvironment

    /// Adds `GET` and `POST /consent`, both async.
    func register(on router: Router) {
        router.page(
            AuthorizationFlow.consentPath, environment: environment, show: { try show($0) }, submit: { try decide($0) })
    }

    private func show(_ request: Request) throws -> Response {
        let seal = request.query[AuthorizationFlow.requestField]
        let pending = try AuthorizationFlow.pendingRequest(seal, environment: environment)
        let authorization = pending.request
        let client = pending.client
        if authorization.isDeviceSignIn {
            // A device login has its own consent page, which shows the code to compare.
            return try AuthorizationFlow.next(
                for: authorization, client: client,
                signedIn: try SignInSession.current(in: request, environment: environment),
                environment: environment)
        }
        guard let seal, let signedIn = try SignInSession.current(in: request, environment: environment),
            authorization.acceptsAuthentication(at: signedIn.session.authTime)
        else {
            return try AuthorizationFlow.redirect(
                to: AuthorizationFlow.loginPath, carrying: authorization, environment: environment, status: .found)
        }
        let language = request.pageLanguage(pending: authorization.language)
        let (granted, lines) = try environment.store.read { transaction in
            try UnverifiedAppLimit.check(client, userID: signedIn.user.id, in: transaction)
            let granted =
                try transaction.consent(userID: signedIn.user.id, clientID: client.id).map {
                    try AccountLinkConsent.standingScopes(of: $0, for: client, in: transaction)
                } ?? []
            var lines: [String: String] = [:]
            for scope in authorization.scopes {
                lines[scope] = try ScopeCatalog.description(of: scope, in: transaction, language: language)
            }
            if authorization.scopes.contains(AccountLinkScope.name) {
                lines[AccountLinkScope.name] = try AccountLinkConsent.line(
                    for: client, in: transaction, language: language)
            }
            return (granted, lines)
        }
        let asking = authorization.scopes.filter { authorization.forcesConsent || !granted.contains($0) }
        if asking.isEmpty {
            return try AuthorizationFlow.next(
                for: authorization, client: client, signedIn: signedIn,
                mustConfirm: ReturnConfirmation.isNeeded(for: signedIn, in: request, secure: environment.usesHTTPS),
                environment: environment)
        }
        let already = authorization.scopes.filter { !asking.contains($0) }
        let (secret, cookie) = CSRFProtection.ensureSecret(in: request, secure: environment.usesHTTPS)
        let page = ConsentPage(
            client: client, user: signedIn.user, requested: asking.compactMap { lines[$0] },
            alreadyGranted: already.compactMap { lines[$0] }, sealedRequest: seal,
            csrfToken: CSRFProtection.token(
                secret: secret,
                purpose: CSRFProtection.consentPurpose(
                    requestID: authorization.id, sessionHashedID: signedIn.session.hashedID)),
            language: language)
        var response = page.response()
        if let cookie { response.setCookie(cookie) }
        return response
    }

    private func decide(_ request: Request) throws -> Response {
        let decision: PostedDecision
        switch try PostedDecision.read(
            try request.pageForm(), request: request, environment: environment, purpose: CSRFProtection.consentPurpose)
        {
        case .signInAgain(let response): return response
        case .decided(let posted): decision = posted
        }
        let (authorization, client, signedIn) = (decision.authorization, decision.client, decision.signedIn)
        switch decision.value {
        case "allow":
            guard authorization.acceptsAuthentication(at: signedIn.session.authTime) else {
                return try PostedDecision.signIn(again: authorization, environment: environment)
            }
            let now = environment.now()
            _ = try environment.store.transaction { transaction in
                try UnverifiedAppLimit.check(client, userID: signedIn.user.id, in: transaction)
                return try ConsentPolicy().grant(
                    userID: signedIn.user.id, clientID: client.id, scopes: Set(authorization.scopes), in: transaction,
                    now: now)
            }
            return try AuthorizationFlow.issueCode(
                for: authorization, signedIn: signedIn, environment: environment, status: .seeOther)
        case "deny":
            return AuthorizationFlow.failure(.accessDenied, authorization, environment, .seeOther)
        case "switch":
            return try decision.switchAccount(request, environment: environment)
        default:
            throw PageProblem.malformedRequest(appName: client.name)
        }
    }
}
