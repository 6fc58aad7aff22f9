import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// `POST /oauth/companion/authorize`: an app's authorization request, brought by the
/// companion (`portico-agent`) that the person is signed in to on this device, answered
/// without a password (DESIGN, "The companion").
///
/// The bearer token must be a live companion session's (``CompanionCaller``). The form is the
/// app's request as it would go to `/oauth/authorize` (`client_id`, `redirect_uri`, `scope`,
/// `state`, `nonce`, `code_challenge`, `code_challenge_method`, `prompt`, `max_age`,
/// `ui_locales`, `resource`; `response_type` may be left out and means `code`), or `client_id`
/// and the `request_uri` of a request the app pushed to `/oauth/par` (RFC 9126; a client held
/// to PAR must), checked by the same ``AuthorizationRequestValidator``. Then, as ``AuthorizationFlow`` decides for a browser:
///
/// - `prompt=login` / `select_account`, or a `max_age` older than the companion's sign-in:
///   `login_required` (the agent asks the person to sign in to it again);
/// - everything asked for already allowed: a code for a confidential app; a `continue` ticket
///   for a public one, whose remembered consent still needs a click (RFC 8252 §8.6), or
///   `interaction_required` under `prompt=none`;
/// - otherwise a `consent` ticket listing what is new, or `consent_required` under
///   `prompt=none`.
///
/// A ticket is single use, lives ``ticketLifetime``, is stored hashed and is bound to this
/// companion session and this exact request; ``CompanionConsentEndpoint`` redeems it. The
/// answers' JSON is ``CompanionAnswer``'s. Each code and ticket is audited and counted.
struct CompanionAuthorizationEndpoint: Sendable {
    /// The endpoint's path.
    static let path = "/oauth/companion/authorize"
    /// How long a ticket may wait for the person's answer.
    static let ticketLifetime: TimeInterval = 5 * 60

    /// The store, keys, clock, issuer and bearer-token gate (``CompanionRoutes/Parts``).
    let parts: CompanionRoutes.Parts
    /// The companion counters.
    let metrics: CompanionMetrics

    /// Registers `POST` where the store's handlers run.
    func register(on router: Router) {
        parts.execution.post(Self.path, on: router) { request in handle(request) }
    }

    /// Answers one request; every failure is JSON.
    func handle(_ request: Request) -> Response {
        let response = OAuthEndpoint.respond {
            do {
                let (response, outcome) = try answer(request)
                metrics.record(outcome)
                return response
            } catch {
                metrics.record(.error)
                throw error
            }
        }
        // A proof's nonce travels with every answer when nonces are required (RFC 9449 §8.2).
        return parts.resource.supplyingNonce(response, to: request)
    }

    private func answer(_ request: Request) throws -> (Response, CompanionMetrics.Outcome) {
        let caller = try CompanionCaller.authenticate(request, resource: parts.resource)
        let (parameters, pushed) = try Self.parameters(of: request, parts: parts)
        let validator = AuthorizationRequestValidator(
            store: parts.store, now: parts.now, requiresPAR: parts.requiresPAR)
        switch try validator.validate(parameters, pushed: pushed)
        {
        case .page(let problem):
            throw CompanionAnswer.untrusted(problem)
        case .redirect(let error, _, let state):
            return (CompanionAnswer.failure(error, state: state, issuer: parts.issuer), .error)
        case .valid(let authorization, let client):
            let language =
                authorization.language ?? PageLanguage.preferred(acceptLanguage: request.headers["Accept-Language"])
                ?? .english
            return try decide(authorization, client: client, caller: caller, language: language)
        }
    }

    /// The parameters of `request` and whether they were pushed: with a `request_uri`, those
    /// the app pushed to `/oauth/par` (RFC 9126), taken once, as `/oauth/authorize` takes them;
    /// otherwise the form itself.
    static func parameters(of request: Request, parts: CompanionRoutes.Parts) throws -> (FormParameters, Bool) {
        let incoming = try OAuthParameters.form(of: request)
        guard !incoming.values(for: "request_uri").isEmpty else { return (try form(of: request), false) }
        let source = AuthorizationRequestSource(
            store: parts.store, now: parts.now, requestObjects: parts.requestObjects)
        switch try source.resolve(incoming) {
        case .parameters(let resolved, let pushed): return (resolved, pushed)
        case .page(let problem): throw CompanionAnswer.untrusted(problem)
        case .invalidRequestObject: throw CompanionAnswer.untrusted(.malformedRequest(appName: nil))
        }
    }

    /// The form of `request`, with `response_type=code` added when it names none. Not
    /// ``OAuthParameters``: the authorization request's validator judges repeated and empty
    /// parameters itself (RFC 6749 §3.1), so it gets the form as sent.
    static func form(of request: Request) throws(OAuthError) -> FormParameters {
        let form = try OAuthParameters.form(of: request)
        guard form.values(for: "response_type").isEmpty else { return form }
        return FormParameters(Array(form) + [(name: "response_type", value: "code")])
    }

    private func decide(
        _ authorization: AuthorizationRequest, client: Client, caller: CompanionCaller, language: PageLanguage
    ) throws -> (Response, CompanionMetrics.Outcome) {
        func fail(_ error: AuthorizationRedirectError) -> (Response, CompanionMetrics.Outcome) {
            (CompanionAnswer.failure(error, state: authorization.state, issuer: parts.issuer), .error)
        }
        if authorization.forcesLogin || !authorization.acceptsAuthentication(at: caller.authTime) {
            return fail(Self.loginRequired)
        }
        let now = parts.now()
        let (isCompanion, granted, lines) = try parts.store.read { transaction in
            let granted =
                try transaction.consent(userID: caller.user.id, clientID: client.id).map {
                    try AccountLinkConsent.standingScopes(of: $0, for: client, in: transaction)
                } ?? []
            var lines: [String: String] = [:]
            for scope in authorization.scopes {
                lines[scope] = try ScopeCatalog.description(of: scope, in: transaction, language: language)
            }
            return (try transaction.isCompanionClient(id: client.id), granted, lines)
        }
        guard !isCompanion else {
            return fail(.invalidRequest("A companion signs in on its own, not through another companion."))
        }
        let asking = authorization.scopes.filter { authorization.forcesConsent || !granted.contains($0) }
        let kind: CompanionAnswer.Kind
        if asking.isEmpty {
            guard AuthorizationFlow.asksBeforeReplayingConsent(client) else {
                let code = try parts.store.transaction { transaction in
                    let code = try CompanionCode.issue(
                        for: authorization, caller: caller, codeLifetime: parts.lifetimes.authorizationCode, now: now,
                        in: transaction)
                    try transaction.append(
                        CompanionCode.auditEvent(
                            "companion.code", caller: caller, clientID: client.id, now: now,
                            details: ["consent": "remembered"]))
                    return code
                }
                return (CompanionAnswer.code(code, for: authorization, issuer: parts.issuer), .code)
            }
            if authorization.forbidsInteraction { return fail(.interactionRequired) }
            kind = .continue
        } else {
            if authorization.forbidsInteraction { return fail(.consentRequired) }
            kind = .consent
        }
        guard let seal = PendingRequestSeal.seal(authorization, keys: parts.keys) else {
            throw OAuthError.serverError()
        }
        let ticket = SecureRandom.token()
        try parts.store.transaction { transaction in
            try transaction.insert(
                CompanionTicket(
                    ticket: ticket, sessionID: caller.session.id, kind: kind.rawValue, request: seal, createdAt: now,
                    expiresAt: now.addingTimeInterval(Self.ticketLifetime)))
            try transaction.append(
                CompanionCode.auditEvent(
                    "companion.ticket", caller: caller, clientID: client.id, now: now,
                    details: ["kind": .string(kind.rawValue)]))
        }
        let shown = kind == .continue ? authorization.scopes : asking
        let already = kind == .continue ? [] : authorization.scopes.filter { !asking.contains($0) }
        return (
            CompanionAnswer.ticket(
                ticket, kind: kind, lifetime: Self.ticketLifetime, client: client, user: caller.user,
                asking: shown.map { ($0, lines[$0] ?? $0) }, granted: already.map { ($0, lines[$0] ?? $0) },
                language: language),
            kind == .continue ? .continue : .consent
        )
    }

    /// The app wants a fresh password entry, which only the companion's own sign-in can give.
    static let loginRequired = AuthorizationRedirectError(
        code: "login_required", description: "The app asks for a fresh sign-in: sign in to the companion again.")
}
