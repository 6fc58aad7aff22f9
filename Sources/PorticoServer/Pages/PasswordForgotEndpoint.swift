import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// `GET /password/forgot` asks for an e-mail address; `POST` mails a single-use reset link to
/// the account with that address, if there is one.
///
/// The answer is the same page whether or not the address has an account, and the work is the
/// same too: a 256-bit token is made and hashed and one write transaction runs either way, and
/// the mail is handed to the ``Mailer`` without waiting for it. Requests are limited per
/// address (``AttemptThrottle/resetRequestLimit`` in 15 minutes) so the form cannot be used to
/// flood someone's mailbox.
struct PasswordForgotEndpoint: Sendable {
    /// The page's path.
    static let path = "/password/forgot"
    /// How long a reset link works.
    static let linkLifetime: TimeInterval = 30 * 60

    /// The provider's store, clock and mailer.
    let environment: PageEnvironment

    /// Adds `GET` and `POST /password/forgot`, both async.
    func register(on router: Router) {
        router.page(Self.path, environment: environment, show: { try show($0) }, submit: { try requestLink($0) })
    }

    private func show(_ request: Request) throws -> Response {
        let (seal, pending) = carried(request.query[AuthorizationFlow.requestField])
        let (secret, cookie) = CSRFProtection.ensureSecret(in: request, secure: environment.usesHTTPS)
        let page = ForgotPasswordPage(
            sealedRequest: seal,
            csrfToken: CSRFProtection.token(secret: secret, purpose: Self.purpose),
            language: request.pageLanguage(pending: pending?.language), email: pending?.loginHint ?? "")
        var response = page.response()
        if let cookie { response.setCookie(cookie) }
        return response
    }

    private func requestLink(_ request: Request) throws -> Response {
        let form = try request.pageForm()
        let (seal, pending) = carried(form[AuthorizationFlow.requestField])
        guard CSRFProtection.verify(form, request: request, purpose: Self.purpose, secure: environment.usesHTTPS) else {
            throw PageProblem.forgedForm(appName: nil)
        }
        let email = String((form["email"] ?? "").trimmingSpaces.prefix(254))
        let language = request.pageLanguage(pending: pending?.language)
        var page = ForgotPasswordPage(
            sealedRequest: seal, csrfToken: form[CSRFProtection.fieldName] ?? "", language: language, email: email)
        guard UserRegistration.looksLikeEmail(email) else {
            page.emailError = email.isEmpty ? SignupText.emailMissing : SignupText.emailInvalid
            return page.response()
        }
        let throttle = AttemptThrottle(environment: environment)
        let limits = AttemptThrottle.resetRequestLimits(address: request.remoteAddress)
        if case .refused(let wait) = try throttle.attempt(limits) {
            page.alert = AttemptThrottle.refusal(retryAfter: wait)
            page.status = .tooManyRequests
            var response = page.response()
            response.headers["Retry-After"] = String(Int(wait.rounded(.up)))
            return response
        }

        let now = environment.now()
        let token = SecureRandom.token()
        var reset = PasswordReset(
            token: token, userID: "", createdAt: now, expiresAt: now.addingTimeInterval(Self.linkLifetime))
        let user: UserRecord? = try environment.store.transaction { transaction in
            guard let user = try transaction.user(email: email), !user.isDisabled else { return nil }
            reset.userID = user.id
            try transaction.insert(reset)
            return user
        }
        if let user {
            var link = environment.issuer + PasswordResetEndpoint.path + "?token=" + token
            if let seal { link += "&" + AuthorizationFlow.requestField + "=" + seal }
            if language != .english { link += "&ui_locales=" + language.rawValue }
            let minutes = Int(Self.linkLifetime / 60)
            let message = MailMessage(
                to: user.email, subject: PasswordResetText.subject[language],
                body: PasswordResetText.mail(name: user.name, link: link, minutes: minutes)[language], date: now)
            environment.mailer.sendInBackground(message, what: "a password-reset")
        }
        return ForgotPasswordPage.sent(
            email: email, sealedRequest: seal, minutes: Int(Self.linkLifetime / 60), language: language)
    }

    /// The pending request a page carries, if its seal is still good; a stale or broken one is
    /// dropped rather than stopping someone who wants their account back.
    private func carried(_ seal: String?) -> (String?, AuthorizationRequest?) {
        guard let seal, !seal.isEmpty,
            let request = (try? AuthorizationFlow.pendingRequest(seal, environment: environment))?.request
        else { return (nil, nil) }
        return (seal, request)
    }

    /// The CSRF purpose of the form. Not bound to the pending request: a request that expires
    /// while the form is open is dropped, and the form must still work without it.
    static let purpose = "password-forgot"
}
