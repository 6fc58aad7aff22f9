import Foundation
import PorticoHTTP
import PorticoStore

/// `GET,POST /device`: where a person approves a device login (RFC 8628 §3.3).
///
/// The steps: the code-entry form (or the code already in the URL, from
/// `verification_uri_complete`); then, carried in a sealed ``AuthorizationRequest`` whose
/// ``AuthorizationRequest/deviceUserCode`` is set, the ordinary sign-in page when nobody is
/// signed in (it returns here through ``AuthorizationFlow/next(for:client:signedIn:mustSignIn:environment:status:)``);
/// then the device consent page; then connected or not. Codes typed are counted per client
/// address by the store-backed ``AttemptThrottle`` (so every node sees them), and a code that
/// is found is forgiven: a user code has only 20⁸ values, and this page is the one place they
/// can be guessed at.
struct DeviceEndpoint: Sendable {
    /// Wrong codes one address may enter within ``throttleWindow``.
    static let throttleLimit = 10
    /// The span over which wrong codes count: 15 minutes.
    static let throttleWindow: TimeInterval = 15 * 60

    /// The provider's store, keys and clock.
    let environment: PageEnvironment

    /// Adds `GET` and `POST /device`, both async (they read and write the store).
    func register(on router: Router) {
        router.page(
            AuthorizationFlow.devicePath, environment: environment, show: { try show($0) }, submit: { try submit($0) })
    }

    // MARK: Requests

    private func show(_ request: Request) throws -> Response {
        if let seal = request.query[AuthorizationFlow.requestField] {
            return try showConsent(seal: seal, request: request)
        }
        if let typed = request.query["user_code"], !typed.isEmpty {
            return try enter(typed, request: request, status: .found)
        }
        return entryPage(request)
    }

    private func submit(_ request: Request) throws -> Response {
        let form = try request.pageForm()
        if form[AuthorizationFlow.requestField] != nil { return try decide(form, request: request) }
        guard CSRFProtection.verify(form, request: request, purpose: Self.entryPurpose, secure: environment.usesHTTPS)
        else {
            throw PageProblem.forgedForm(appName: nil)
        }
        return try enter(form["user_code"] ?? "", request: request, status: .seeOther)
    }

    /// A typed code: throttled, looked up, and on to sign-in or consent.
    private func enter(_ typed: String, request: Request, status: HTTPStatus) throws -> Response {
        let now = environment.now()
        let address = request.remoteAddress.isEmpty ? "-" : request.remoteAddress
        let shown = String(typed.prefix(32))
        let code = DeviceAuthorization.normalizedUserCode(shown)
        guard !code.isEmpty else { return entryPage(request, typed: shown, problem: .empty) }
        let throttle = AttemptThrottle(environment: environment)
        let limits = [
            AttemptThrottle.Limit(
                key: "device-code:address:" + ThrottleAddress.bucket(address), maximum: Self.throttleLimit,
                window: Self.throttleWindow)
        ]
        let counted: [ThrottleAttempt]
        switch try throttle.attempt(limits) {
        case .refused(let wait):
            return DevicePages.tooManyAttempts(retryAfter: Int(wait.rounded(.up)), language: request.pageLanguage())
        case .allowed(let attempts):
            counted = attempts
        }
        var found: (DeviceAuthorization, Client)?
        if code.count == UserCode.length {
            found = try environment.store.read { transaction in
                guard let authorization = try transaction.deviceAuthorization(userCode: code, now: now),
                    authorization.status == .pending, let client = try transaction.client(id: authorization.clientID)
                else { return nil }
                return (authorization, client)
            }
        }
        guard let found else { return entryPage(request, typed: shown, problem: .unknownCode) }
        try throttle.forgive(counted)
        let (authorization, client) = found
        let pending = AuthorizationRequest.deviceSignIn(
            userCode: authorization.userCode, clientID: client.id, scopes: authorization.scopes, now: now)
        return try AuthorizationFlow.next(
            for: pending, client: client, signedIn: try SignInSession.current(in: request, environment: environment),
            environment: environment, status: status)
    }

    private func showConsent(seal: String, request: Request) throws -> Response {
        let opened = try AuthorizationFlow.pendingRequest(seal, environment: environment)
        let pending = opened.request
        let client = opened.client
        guard let userCode = pending.deviceUserCode else { throw PageProblem.invalidRequest }
        guard let signedIn = try SignInSession.current(in: request, environment: environment),
            pending.acceptsAuthentication(at: signedIn.session.authTime)
        else {
            return try AuthorizationFlow.redirect(
                to: AuthorizationFlow.loginPath, carrying: pending, environment: environment, status: .found)
        }
        let now = environment.now()
        let language = request.pageLanguage(pending: pending.language)
        let lines = try environment.store.read { transaction -> [String]? in
            guard let authorization = try transaction.deviceAuthorization(userCode: userCode, now: now),
                authorization.status == .pending, authorization.clientID == client.id
            else { return nil }
            return try pending.scopes.map { try ScopeCatalog.description(of: $0, in: transaction, language: language) }
        }
        guard let lines else { return entryPage(request, problem: .noLongerValid(appName: client.name)) }
        let (secret, cookie) = CSRFProtection.ensureSecret(in: request, secure: environment.usesHTTPS)
        var response = DevicePages.consent(
            client: client, user: signedIn.user, userCode: userCode, permissions: lines, sealedRequest: seal,
            csrfToken: CSRFProtection.token(
                secret: secret,
                purpose: Self.consentPurpose(requestID: pending.id, sessionHashedID: signedIn.session.hashedID)),
            signsInCompanion: pending.scopes.contains(CompanionClients.scope), language: language)
        if let cookie { response.setCookie(cookie) }
        return response
    }

    private func decide(_ form: FormParameters, request: Request) throws -> Response {
        let decision: PostedDecision
        switch try PostedDecision.read(
            form, request: request, environment: environment, forDevice: true, purpose: Self.consentPurpose)
        {
        case .signInAgain(let response): return response
        case .decided(let posted): decision = posted
        }
        let (pending, client, signedIn) = (decision.authorization, decision.client, decision.signedIn)
        guard let userCode = pending.deviceUserCode else { throw PageProblem.invalidRequest }
        let now = environment.now()
        let language = request.pageLanguage(pending: pending.language)
        switch decision.value {
        case "allow":
            guard pending.acceptsAuthentication(at: signedIn.session.authTime) else {
                return try PostedDecision.signIn(again: pending, environment: environment)
            }
            let approved = try environment.store.transaction { transaction in
                guard let authorization = try transaction.deviceAuthorization(userCode: userCode, now: now),
                    authorization.clientID == client.id,
                    try transaction.approveDeviceAuthorization(
                        userCode: userCode, userID: signedIn.user.id, authTime: signedIn.session.authTime, now: now)
                else { return false }
                try ConsentPolicy().grant(
                    userID: signedIn.user.id, clientID: client.id, scopes: Set(authorization.scopes), in: transaction,
                    now: now)
                return true
            }
            guard approved else { return entryPage(request, problem: .noLongerValid(appName: client.name)) }
            return DevicePages.connected(appName: client.name, language: language)
        case "deny":
            _ = try environment.store.transaction { transaction in
                guard try transaction.deviceAuthorization(userCode: userCode, now: now)?.clientID == client.id else {
                    return false
                }
                return try transaction.denyDeviceAuthorization(userCode: userCode, now: now)
            }
            return DevicePages.denied(appName: client.name, language: language)
        case "switch":
            return try decision.switchAccount(request, environment: environment)
        default:
            throw PageProblem.malformedRequest(appName: client.name)
        }
    }

    // MARK: Helpers

    /// The code-entry page with a fresh CSRF token (and cookie, when the browser has none).
    private func entryPage(_ request: Request, typed: String = "", problem: DevicePages.EntryProblem? = nil)
        -> Response
    {
        let (secret, cookie) = CSRFProtection.ensureSecret(in: request, secure: environment.usesHTTPS)
        var response = DevicePages.entry(
            csrfToken: CSRFProtection.token(secret: secret, purpose: Self.entryPurpose), typed: typed,
            problem: problem, language: request.pageLanguage())
        if let cookie { response.setCookie(cookie) }
        return response
    }

    /// The CSRF purpose of the code-entry form.
    static let entryPurpose = "device:code"

    /// The CSRF purpose of the device consent form: bound to the pending sign-in and to the
    /// session it was shown for, like the ordinary consent form.
    static func consentPurpose(requestID: String, sessionHashedID: String) -> String {
        "device-consent:\(requestID):\(sessionHashedID)"
    }
}
