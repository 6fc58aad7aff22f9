import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// `GET /login` shows the sign-in page; `POST /login` checks the password and signs in.
///
/// Password checks run in async handlers, off the HTTP threads (Argon2id costs tens of
/// milliseconds by design). An unknown address is checked against a dummy hash so that it
/// takes as long as a wrong password, and both get the same message.
struct LoginEndpoint: Sendable {
    /// Longest e-mail address looked up.
    static let maximumEmailLength = 320
    /// Longest password hashed; longer ones are wrong by definition (and cannot cost more).
    static let maximumPasswordLength = 1024

    /// The provider's store, hasher, keys and clock.
    let environment: PageEnvironment
    /// A hash of a random password with the current settings, verified when the e-mail address
    /// is unknown so that the answer takes as long as for a known one.
    let dummyHash: String

    /// Prepares the endpoint, hashing the dummy password once (at start-up, not per request).
    ///
    /// - Throws: when the password settings cannot hash: without a dummy hash an unknown
    ///   address would be answered at once, telling it apart from a known one (a timing
    ///   oracle), so the provider refuses to start instead.
    init(environment: PageEnvironment) throws {
        self.environment = environment
        dummyHash = try environment.passwords.hash(SecureRandom.token())
    }

    /// Adds `GET` and `POST /login`, both async.
    func register(on router: Router) {
        router.page(
            AuthorizationFlow.loginPath, environment: environment, show: { try show($0) }, submit: { try signIn($0) })
    }

    private func show(_ request: Request) throws -> Response {
        let seal = request.query[AuthorizationFlow.requestField]
        let pending = try AuthorizationFlow.optionalPendingRequest(seal, environment: environment)
        let (secret, cookie) = CSRFProtection.ensureSecret(in: request, secure: environment.usesHTTPS)
        var page = LoginPage(
            appName: pending?.client.name, sealedRequest: pending == nil ? nil : seal,
            csrfToken: CSRFProtection.token(
                secret: secret, purpose: CSRFProtection.loginPurpose(requestID: pending?.request.id)),
            email: pending?.request.loginHint ?? "", language: request.pageLanguage(pending: pending?.request.language))
        if pending == nil { page.returnPath = ReturnPath.validated(request.query[ReturnPath.field]) }
        // Asked for the password again (prompt=login, max_age) on a kept session: keep it kept.
        page.remembersMe =
            try SignInSession.current(in: request, environment: environment)?.session.isPersistent ?? false
        var response = page.response()
        if let cookie { response.setCookie(cookie) }
        return response
    }

    private func signIn(_ request: Request) throws -> Response {
        let form = try request.pageForm()
        let seal = form[AuthorizationFlow.requestField]
        let pending = try AuthorizationFlow.optionalPendingRequest(seal, environment: environment)
        let purpose = CSRFProtection.loginPurpose(requestID: pending?.request.id)
        guard CSRFProtection.verify(form, request: request, purpose: purpose, secure: environment.usesHTTPS) else {
            throw PageProblem.forgedForm(appName: pending?.client.name)
        }
        let email = (form["email"] ?? "").trimmingCharacters(in: .whitespaces)
        let password = form["password"] ?? ""
        let remember = form["remember_me"] != nil
        let language = request.pageLanguage(pending: pending?.request.language)
        func again(_ message: Localized, status: HTTPStatus = .ok) -> Response {
            var page = LoginPage(
                appName: pending?.client.name, sealedRequest: pending == nil ? nil : seal,
                csrfToken: form[CSRFProtection.fieldName] ?? "", email: String(email.prefix(Self.maximumEmailLength)),
                language: language)
            page.remembersMe = remember
            page.errorMessage = message[language]
            page.status = status
            if pending == nil { page.returnPath = ReturnPath.validated(form[ReturnPath.field]) }
            return page.response()
        }
        guard !email.isEmpty, !password.isEmpty else { return again(LoginText.missingFields) }

        // Counted before the password is checked (see AttemptThrottle); unknown addresses count
        // like known ones, so a refusal says nothing about who has an account. Both wait for a
        // turn at the gate first: a sign-in turned away there is neither counted nor checked.
        let throttle = AttemptThrottle(environment: environment)
        let limits = AttemptThrottle.signInLimits(
            email: String(email.prefix(Self.maximumEmailLength)), address: request.remoteAddress)
        let checked = try environment.passwordChecks.admit { () throws -> PasswordCheck in
            switch try throttle.attempt(limits) {
            case .refused(let wait): return .refused(wait: wait)
            case .allowed(let attempts):
                return .checked(attempts, user: try authenticate(email: email, password: password))
            }
        }
        let counted: [ThrottleAttempt]
        let found: UserRecord?
        switch checked {
        case nil:
            environment.metrics.recordSignIn(.shed)
            throw PageProblem.busy
        case .refused(let wait):
            environment.metrics.recordSignIn(.throttled)
            var response = again(AttemptThrottle.refusal(retryAfter: wait), status: .tooManyRequests)
            response.headers["Retry-After"] = String(Int(wait.rounded(.up)))
            return response
        case .checked(let attempts, let user):
            (counted, found) = (attempts, user)
        }
        guard let user = found else {
            environment.metrics.recordSignIn(.failure)
            return again(LoginText.wrongCredentials)
        }
        // A disabled account gets the wrong-password answer: saying "disabled" would confirm to
        // whoever typed it that the password is right (worth trying elsewhere). The operator who
        // disabled the account is the one to tell its owner.
        guard !user.isDisabled else {
            environment.metrics.recordSignIn(.failure)
            return again(LoginText.wrongCredentials)
        }
        try throttle.forgive(counted, clearing: limits.prefix(1).map(\.key))
        let returnPath = pending == nil ? form[ReturnPath.field] : nil
        // Enrolled in two-step verification: no session yet, the code comes first.
        if let second = try TwoStepSignInEndpoint(environment: environment).challenge(
            for: user, persistent: remember, sealedRequest: pending == nil ? nil : seal, returnPath: returnPath,
            appName: pending?.client.name, request: request, language: language)
        {
            return second
        }
        let response = try SignInCompletion.finish(
            user: user, persistent: remember, methods: AuthenticationMethods.password, pending: pending,
            returnPath: returnPath, request: request, environment: environment)
        environment.metrics.recordSignIn(.success)
        return response
    }

    /// What the throttle and the password check found, inside the gate.
    private enum PasswordCheck {
        /// The throttle refused the attempt for `wait` seconds; no password was checked.
        case refused(wait: TimeInterval)
        /// The attempt was counted under `attempts`; `user` is the account the password opens.
        case checked([ThrottleAttempt], user: UserRecord?)
    }

    /// The user whose address and password these are, or nil; always runs one Argon2id
    /// verification, and upgrades the stored hash when the settings changed.
    private func authenticate(email: String, password: String) throws -> UserRecord? {
        var candidate: UserRecord?
        if email.utf8.count <= Self.maximumEmailLength, StoredText.canHold(email) {
            candidate = try environment.store.read { try $0.user(email: email) }
        }
        let acceptable = password.utf8.count <= Self.maximumPasswordLength
        guard var user = candidate else {
            _ = environment.passwords.verify(acceptable ? password : "", against: dummyHash)
            return nil
        }
        guard !user.passwordHash.isEmpty else {
            // Passkeys only (signed up without a password): the same Argon2id work, so the
            // answer's timing does not tell such accounts apart.
            _ = environment.passwords.verify(acceptable ? password : "", against: dummyHash)
            return nil
        }
        guard acceptable, environment.passwords.verify(password, against: user.passwordHash) else { return nil }
        if !user.isDisabled, environment.passwords.needsRehash(user.passwordHash),
            let upgraded = try? environment.passwords.hash(password)
        {
            user.passwordHash = upgraded
            user.updatedAt = environment.now()
            try? environment.store.transaction { try $0.update(user) }
        }
        return user
    }
}
