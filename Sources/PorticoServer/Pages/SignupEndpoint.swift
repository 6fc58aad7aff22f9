import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// `GET /signup` shows the create-account form; `POST /signup` creates the account, signs the
/// person in and goes on with the authorization that sent them (usually to consent), or shows
/// "your account is ready".
///
/// Values are checked like ``UserRegistration`` checks them for `portico user add` (which then
/// stores the account), plus the password rules of ``PasswordPolicy``. Hashing runs in an async
/// handler, off the HTTP threads.
struct SignupEndpoint: Sendable {
    /// The page's path.
    static let path = "/signup"

    /// The provider's store, hasher, keys and clock.
    let context: ProviderContext

    /// Adds `GET` and `POST /signup`, both async.
    func register(on router: Router) {
        router.page(Self.path, context: context, show: { try show($0) }, submit: { try create($0) })
    }

    private func show(_ request: Request) throws -> Response {
        let seal = request.query[AuthorizationFlow.requestField]
        let pending = try AuthorizationFlow.optionalPendingRequest(seal, context: context)
        let (secret, cookie) = CSRFProtection.ensureSecret(in: request, secure: context.usesHTTPS)
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
        let pending = try AuthorizationFlow.optionalPendingRequest(seal, context: context)
        guard
            CSRFProtection.verify(
                form, request: request, purpose: Self.purpose(requestID: pending?.request.id),
                secure: context.usesHTTPS)
        else {
            throw PageProblem.forgedForm(appName: pending?.client.name)
        }
        let values = SignupPage.Values(
            name: String((form["name"] ?? "").trimmingSpaces.prefix(200)),
            email: String((form["email"] ?? "").trimmingSpaces.prefix(254)),
            postalCode: String((form["postal_code"] ?? "").trimmingSpaces.prefix(20)))
        let password = form["password"] ?? ""
        let language = request.pageLanguage(pending: pending?.request.language)
        func again(_ errors: [String: Localized]) -> Response {
            SignupPage(
                appName: pending?.client.name, sealedRequest: pending == nil ? nil : seal,
                csrfToken: form[CSRFProtection.fieldName] ?? "", language: language, values: values, errors: errors
            ).response()
        }
        let errors = Self.problems(values: values, password: password, form: form)
        guard errors.isEmpty else { return again(errors) }
        // Counted before the password is hashed: a flood of sign-ups must not buy Argon2id time
        // on the workers that serve every page.
        if case .refused(let wait) = try AttemptThrottle(context: context).attempt(
            AttemptThrottle.signUpLimits(address: request.remoteAddress))
        {
            var response = again(["email": AttemptThrottle.refusal(retryAfter: wait)])
            response.status = .tooManyRequests
            response.headers["Retry-After"] = String(Int(wait.rounded(.up)))
            return response
        }

        let registration = UserRegistration(
            email: values.email, name: values.name, postalCode: values.postalCode.isEmpty ? nil : values.postalCode,
            password: password)
        let user: UserRecord
        do {
            user = try registration.register(
                in: context.store, hasher: context.passwords, actor: nil, action: "user.signup")
        } catch .conflict {
            return again(["email": SignupText.emailTaken])
        } catch .invalid {
            // The checks above mirror UserRegistration's; this is only a safety net.
            return again(["email": SignupText.emailInvalid])
        } catch {
            throw PageProblem.serverFailure
        }
        let (signedIn, cookie) = try SignInSession.start(
            for: user, persistent: false, replacing: request.cookies[SignInSession.cookieName(context)],
            request: request,
            context: context)
        var response: Response
        if let pending {
            response = try AuthorizationFlow.next(
                for: pending.request, client: pending.client, signedIn: signedIn, personActed: true,
                context: context, status: .seeOther)
        } else {
            response = SignupPage.ready(name: user.name, email: user.email, language: language)
        }
        response.setCookie(cookie)
        return response
    }

    /// The problem with each field, by field name; empty when the account can be created.
    static func problems(values: SignupPage.Values, password: String, form: FormParameters) -> [String: Localized] {
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
