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
        router.getAsync(Self.path) { request in
            await ErrorPage.guarding { try show(request) }
        }
        router.postAsync(Self.path) { request in
            await ErrorPage.guarding { try create(request) }
        }
    }

    private func show(_ request: Request) throws -> Response {
        let seal = request.query[AuthorizationFlow.requestField]
        var pending: (AuthorizationRequest, Client)?
        if seal != nil { pending = try AuthorizationFlow.pendingRequest(seal, context: context) }
        let (secret, cookie) = CSRFProtection.ensureSecret(in: request, secure: context.usesHTTPS)
        var page = SignupPage(
            appName: pending?.1.name, sealedRequest: pending == nil ? nil : seal,
            csrfToken: CSRFProtection.token(secret: secret, purpose: Self.purpose(requestID: pending?.0.id)))
        page.values.email = pending?.0.loginHint ?? ""
        var response = page.response()
        if let cookie { response.setCookie(cookie) }
        return response
    }

    private func create(_ request: Request) throws -> Response {
        let form = try request.pageForm()
        let seal = form[AuthorizationFlow.requestField]
        var pending: (AuthorizationRequest, Client)?
        if seal != nil { pending = try AuthorizationFlow.pendingRequest(seal, context: context) }
        guard CSRFProtection.verify(form, request: request, purpose: Self.purpose(requestID: pending?.0.id)) else {
            throw PageProblem.forgedForm(appName: pending?.1.name)
        }
        let values = SignupPage.Values(
            name: String((form["name"] ?? "").trimmingSpaces.prefix(200)),
            email: String((form["email"] ?? "").trimmingSpaces.prefix(254)),
            postalCode: String((form["postal_code"] ?? "").trimmingSpaces.prefix(20)))
        let password = form["password"] ?? ""
        func again(_ errors: [String: String]) -> Response {
            SignupPage(
                appName: pending?.1.name, sealedRequest: pending == nil ? nil : seal,
                csrfToken: form[CSRFProtection.fieldName] ?? "", values: values, errors: errors
            ).response()
        }
        let errors = Self.problems(values: values, password: password, form: form)
        guard errors.isEmpty else { return again(errors) }

        let registration = UserRegistration(
            email: values.email, name: values.name, postalCode: values.postalCode.isEmpty ? nil : values.postalCode,
            password: password)
        let user: User
        do {
            user = try registration.register(in: context.store, hasher: context.passwords, actor: nil, action: "user.signup")
        } catch .conflict {
            return again(["email": "An account with this email address already exists. Sign in, or reset its password."])
        } catch .invalid(let message) {
            // The checks above mirror UserRegistration's; this is only a safety net.
            return again(["email": message])
        } catch {
            throw PageProblem.serverFailure
        }
        let (signedIn, cookie) = try SignInSession.start(
            for: user, persistent: false, replacing: request.cookies[SignInSession.cookieName], request: request,
            context: context)
        var response: Response
        if let (authorization, client) = pending {
            response = try AuthorizationFlow.next(
                for: authorization, client: client, signedIn: signedIn, context: context, status: .seeOther)
        } else {
            response = SignupPage.ready(name: user.name, email: user.email)
        }
        response.setCookie(cookie)
        return response
    }

    /// The problem with each field, by field name; empty when the account can be created.
    static func problems(values: SignupPage.Values, password: String, form: FormParameters) -> [String: String] {
        var errors: [String: String] = [:]
        let rawName = form["name"] ?? ""
        if values.name.isEmpty {
            errors["name"] = "Enter your name."
        } else if rawName.trimmingSpaces.count > 200 {
            errors["name"] = "Use at most 200 characters."
        } else if values.name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            errors["name"] = "Use letters, spaces and punctuation only."
        }
        if values.email.isEmpty {
            errors["email"] = "Enter your email address."
        } else if !UserRegistration.looksLikeEmail((form["email"] ?? "").trimmingSpaces) {
            errors["email"] = "Enter an email address like name@example.com."
        }
        if !values.postalCode.isEmpty {
            let raw = (form["postal_code"] ?? "").trimmingSpaces
            if raw.count > 20 {
                errors["postal_code"] = "Use at most 20 characters."
            } else if !raw.allSatisfy({ $0.isLetter || $0.isNumber || $0 == " " || $0 == "-" }) {
                errors["postal_code"] = "Use only letters, digits, spaces and hyphens."
            }
        }
        if password.isEmpty {
            errors["password"] = "Choose a password."
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
