import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// `GET /signup` shows the create-account form; `POST /signup` answers every well-formed
/// request alike, "check your e-mail", and mails the address: a new one gets a link that makes
/// the account (``SignupVerifyEndpoint``), one that has an account gets a notice that someone
/// tried. So the form tells nobody which addresses have accounts.
///
/// Order of work on `POST`: the form's origin and CSRF token; the throttle per client address
/// (every post counts, as at sign-in); the fields (``PasswordPolicy`` included); the throttle per
/// e-mail address (every request that would mail it counts); and only then the Argon2id hash,
/// so a flood of sign-ups buys no hashing time on the workers that serve every page. The hash is
/// computed for taken addresses too, and the mail is sent without waiting either way: both
/// answers cost the same work, so timing does not tell them apart either.
struct SignupEndpoint: Sendable {
    /// The page's path.
    static let path = "/signup"
    /// The second submit button's name: an account with a passkey and no password.
    static let passkeyField = "use_passkey"

    /// The provider's store, hasher, keys and clock.
    let environment: PageEnvironment
    /// Sign-up counters, shared with the confirmation page.
    let metrics: SignUpMetrics

    /// An endpoint counting into the provider's metrics.
    init(environment: PageEnvironment) {
        self.environment = environment
        metrics = SignUpMetrics(registry: environment.metrics.registry)
    }

    /// Adds `GET` and `POST /signup`, both async, and the confirmation page of the mailed link.
    func register(on router: Router) {
        router.page(Self.path, environment: environment, show: { try show($0) }, submit: { try create($0) })
        SignupVerifyEndpoint(environment: environment, metrics: metrics).register(on: router)
    }

    private func show(_ request: Request) throws -> Response {
        let seal = request.query[AuthorizationFlow.requestField]
        let pending = try AuthorizationFlow.optionalPendingRequest(seal, environment: environment)
        let (secret, cookie) = CSRFProtection.ensureSecret(in: request, secure: environment.usesHTTPS)
        var page = SignupPage(
            appName: pending?.client.name, sealedRequest: pending == nil ? nil : seal,
            csrfToken: CSRFProtection.token(secret: secret, purpose: Self.purpose(requestID: pending?.request.id)),
            language: request.pageLanguage(pending: pending?.request.language))
        page.values.email = pending?.request.loginHint ?? ""
        var response = page.response()
        if let cookie { response.setCookie(cookie) }
        return response
    }

    private func create(_ request: Request) throws -> Response {
        let form = try request.pageForm()
        let seal = form[AuthorizationFlow.requestField]
        let pending = try AuthorizationFlow.optionalPendingRequest(seal, environment: environment)
        guard
            CSRFProtection.verify(
                form, request: request, purpose: Self.purpose(requestID: pending?.request.id),
                secure: environment.usesHTTPS)
        else {
            throw PageProblem.forgedForm(appName: pending?.client.name)
        }
        let values = SignupPage.Values(
            name: String((form["name"] ?? "").trimmingSpaces.prefix(200)),
            email: String((form["email"] ?? "").trimmingSpaces.prefix(254)),
            postalCode: String((form["postal_code"] ?? "").trimmingSpaces.prefix(20)))
        let password = form["password"] ?? ""
        // A passkey instead of a password: created on the mailed link's page (``PasskeySignup``).
        let usesPasskey = form[Self.passkeyField] != nil
        let language = request.pageLanguage(pending: pending?.request.language)
        let carried = pending == nil ? nil : seal
        func again(_ errors: [String: Localized]) -> Response {
            SignupPage(
                appName: pending?.client.name, sealedRequest: carried,
                csrfToken: form[CSRFProtection.fieldName] ?? "", language: language, values: values, errors: errors
            ).response()
        }
        let throttle = AttemptThrottle(environment: environment)
        func refused(_ limits: [AttemptThrottle.Limit]) throws -> Response? {
            guard case .refused(let wait) = try throttle.attempt(limits) else { return nil }
            metrics.record(.throttled)
            var response = again(["email": AttemptThrottle.refusal(retryAfter: wait)])
            response.status = .tooManyRequests
            response.headers["Retry-After"] = String(Int(wait.rounded(.up)))
            return response
        }
        if let response = try refused(AttemptThrottle.signUpLimits(address: request.remoteAddress)) {
            return response
        }
        let errors = Self.problems(values: values, password: usesPasskey ? nil : password, form: form)
        guard errors.isEmpty else {
            metrics.record(.invalid)
            return again(errors)
        }
        // Counted only for requests that would mail the address: a person fixing a refused
        // password does not use up their own address's allowance.
        if let response = try refused(AttemptThrottle.signUpEmailLimits(email: values.email)) {
            return response
        }

        // The hash waits for a turn at the sign-in gate like a password check: a sign-up flood
        // is shed with 503 and Retry-After instead of taking every core from the other pages.
        // No password, no hash: the empty hash marks the sign-up that finishes with a passkey.
        var hash = ""
        if !usesPasskey {
            let hashed: String?
            do {
                hashed = try environment.passwordChecks.admit { try environment.passwords.hash(password) }
            } catch {
                throw PageProblem.serverFailure
            }
            guard let value = hashed else {
                metrics.record(.shed)
                throw PageProblem.busy
            }
            hash = value
            metrics.recordHash()
        }
        let now = environment.now()
        let token = SecureRandom.token()
        let signup = PendingSignup(
            token: token, email: values.email, name: values.name,
            postalCode: values.postalCode.isEmpty ? nil : values.postalCode, passwordHash: hash, createdAt: now,
            expiresAt: now.addingTimeInterval(SignupVerifyEndpoint.linkLifetime))
        let existing: UserRecord? = try environment.store.transaction { transaction in
            if let user = try transaction.user(email: values.email) { return user }
            try transaction.savePendingSignup(signup)
            return nil
        }
        if let existing {
            metrics.record(.existing)
            SignupMail.send(
                SignupMail.notice(to: existing, at: now, language: language, environment: environment),
                environment: environment)
        } else {
            metrics.record(.mailed)
            SignupMail.send(
                SignupMail.link(
                    for: signup, token: token, sealedRequest: carried, language: language, environment: environment),
                environment: environment)
        }
        return SignupPage.sent(email: values.email, sealedRequest: carried, language: language)
    }

    /// The problem with each field, by field name; empty when the account can be created.
    /// `password` is nil for a sign-up with a passkey, which has none to check.
    static func problems(values: SignupPage.Values, password: String?, form: FormParameters) -> [String: Localized] {
        let text = SignupText.self
        var errors: [String: Localized] = [:]
        if values.name.isEmpty {
            errors["name"] = text.nameMissing
        } else if (form["name"] ?? "").trimmingSpaces.count > 200 {
            errors["name"] = text.nameTooLong
        } else if values.name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            errors["name"] = text.nameInvalid
        }
        if values.email.isEmpty {
            errors["email"] = text.emailMissing
        } else if !UserRegistration.looksLikeEmail((form["email"] ?? "").trimmingSpaces) {
            errors["email"] = text.emailInvalid
        }
        if !values.postalCode.isEmpty {
            let raw = (form["postal_code"] ?? "").trimmingSpaces
            if raw.count > 20 {
                errors["postal_code"] = text.postalTooLong
            } else if !raw.allSatisfy({ $0.isLetter || $0.isNumber || $0 == " " || $0 == "-" }) {
                errors["postal_code"] = text.postalInvalid
            }
        }
        guard let password else { return errors }
        if password.isEmpty {
            errors["password"] = text.passwordMissing
        } else if let problem = PasswordPolicy.problem(with: password, email: values.email, name: values.name) {
            errors["password"] = problem.message
        }
        return errors
    }

    /// The CSRF purpose of the form for a pending request (or none).
    static func purpose(requestID: String?) -> String {
        "signup:" + (requestID ?? "-")
    }
}
