import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// The second step of signing in: after the right password of a person enrolled in two-step
/// verification, ``challenge(for:persistent:sealedRequest:returnPath:appName:request:language:)``
/// answers with the code page instead of a session; `POST /login/otp` checks the code (or a
/// recovery code) and only then signs in.
///
/// The half-done sign-in is a stored ``PendingSecondStep`` (5 minutes, single use, only its hash
/// kept), so any node can finish it; it carries "Keep me signed in", and the sealed authorization
/// request, so the flow goes on to consent or the app as after a password. The page's token
/// travels in a hidden field of a POSTed form, never in a URL. Guessing is throttled per account
/// (5 wrong codes an hour, then sign-in's growing delays) and per client address (20 in 15
/// minutes), counted before the code is checked. A code used before is refused like a wrong
/// one, and audited and mailed to the owner (``TwoStepReplay``).
struct TwoStepSignInEndpoint: Sendable {
    /// The page's path.
    static let path = "/login/otp"
    /// The hidden field that names the half-done sign-in.
    static let pendingField = "pending"

    /// The limits on second-step attempts for `userID` from `address`.
    static func limits(userID: String, address: String) -> [AttemptThrottle.Limit] {
        [
            AttemptThrottle.Limit(
                key: "second-step:account:" + userID, maximum: AttemptThrottle.accountLimit,
                window: AttemptThrottle.accountWindow, growingDelay: AttemptThrottle.firstAccountDelay),
            AttemptThrottle.Limit(
                key: "second-step:address:" + ThrottleAddress.bucket(address), maximum: AttemptThrottle.addressLimit,
                window: AttemptThrottle.window),
        ]
    }

    /// The provider's store, keys and clock.
    let environment: PageEnvironment

    /// Adds `GET` (back to the sign-in page) and `POST /login/otp`.
    func register(on router: Router) {
        router.page(
            Self.path, environment: environment,
            show: { _ in PageLayout.redirect(to: AuthorizationFlow.loginPath, status: .found) },
            submit: { try verify($0) })
    }

    private static func purpose(pendingHashedID: String) -> String {
        "second-step:" + pendingHashedID
    }

    /// For a person enrolled in two-step verification, stores the half-done sign-in and returns
    /// the code page; nil for everyone else (the caller signs them in).
    func challenge(
        for user: UserRecord, persistent: Bool, sealedRequest: String?, returnPath: String?, appName: String?,
        request: Request, language: PageLanguage
    ) throws -> Response? {
        guard try TwoStepVerification(environment: environment).confirmedEnrollment(userID: user.id) != nil else {
            return nil
        }
        let now = environment.now()
        let token = SecureRandom.token()
        let pending = PendingSecondStep(
            token: token, userID: user.id, isPersistent: persistent, sealedRequest: sealedRequest,
            returnPath: ReturnPath.validated(returnPath), createdAt: now,
            expiresAt: now.addingTimeInterval(TwoStepVerification.pendingLifetime))
        try environment.store.transaction { try $0.insert(pending, now: now) }
        let (secret, cookie) = CSRFProtection.ensureSecret(in: request, secure: environment.usesHTTPS)
        var response = TwoStepSignInPage(
            pendingToken: token,
            csrfToken: CSRFProtection.token(secret: secret, purpose: Self.purpose(pendingHashedID: pending.hashedID)),
            appName: appName, language: language
        ).response()
        if let cookie { response.setCookie(cookie) }
        return response
    }

    private func verify(_ request: Request) throws -> Response {
        let form = try request.pageForm()
        let now = environment.now()
        let token = form[Self.pendingField] ?? ""
        guard SignInSession.isWellFormed(token),
            let pending = try environment.store.read({ try $0.pendingSecondStep(token: token, now: now) })
        else {
            return TwoStepSignInPage.expired(language: request.pageLanguage())
        }
        guard
            CSRFProtection.verify(
                form, request: request, purpose: Self.purpose(pendingHashedID: pending.hashedID),
                secure: environment.usesHTTPS)
        else {
            throw PageProblem.forgedForm(appName: nil)
        }
        let authorization = try AuthorizationFlow.optionalPendingRequest(
            pending.sealedRequest, environment: environment)
        let language = request.pageLanguage(pending: authorization?.request.language)
        let recoveryCode = (form["recovery_code"] ?? "").trimmingCharacters(in: .whitespaces)
        let code = (form["otp"] ?? "").trimmingCharacters(in: .whitespaces)
        let usesRecovery = !recoveryCode.isEmpty
        func again(_ message: Localized, status: HTTPStatus = .ok) -> Response {
            TwoStepSignInPage(
                pendingToken: token, csrfToken: form[CSRFProtection.fieldName] ?? "",
                appName: authorization?.client.name, language: language, error: message,
                recoveryChosen: usesRecovery, status: status
            ).response()
        }
        guard usesRecovery || !code.isEmpty else { return again(TwoStepText.codeMissing) }

        let throttle = AttemptThrottle(environment: environment)
        let limits = Self.limits(userID: pending.userID, address: request.remoteAddress)
        let counted: [ThrottleAttempt]
        switch try throttle.attempt(limits) {
        case .refused(let wait):
            environment.metrics.recordSignIn(.throttled)
            var response = again(AttemptThrottle.refusal(retryAfter: wait), status: .tooManyRequests)
            response.headers["Retry-After"] = String(Int(wait.rounded(.up)))
            return response
        case .allowed(let attempts):
            counted = attempts
        }
        let verification = TwoStepVerification(environment: environment)
        let methods: [String]
        if usesRecovery {
            guard recoveryCode.utf8.count <= 32,
                try verification.acceptRecoveryCode(recoveryCode, userID: pending.userID)
            else {
                environment.metrics.recordSignIn(.failure)
                return again(TwoStepText.recoveryCodeWrong)
            }
            methods = AuthenticationMethods.passwordAndRecoveryCode
        } else {
            switch try verification.checkCode(code, userID: pending.userID) {
            case .accepted:
                break
            case .replayed(let step):
                environment.metrics.recordSignIn(.failure)
                try TwoStepReplay(environment: environment).record(
                    userID: pending.userID, step: step, address: request.remoteAddress, language: language)
                // The same words as a wrong code: the presenter learns nothing from them.
                return again(TwoStepText.codeWrong)
            case .wrong:
                environment.metrics.recordSignIn(.failure)
                return again(TwoStepText.codeWrong)
            }
            methods = AuthenticationMethods.passwordAndCode
        }
        // Single use: of two submissions racing with good codes, one signs in.
        guard try environment.store.transaction({ try $0.deletePendingSecondStep(token: token) }),
            let user = try environment.store.read({ try $0.user(id: pending.userID) }), !user.isDisabled
        else {
            return TwoStepSignInPage.expired(language: language)
        }
        try throttle.forgive(counted, clearing: limits.prefix(1).map(\.key))
        if usesRecovery {
            try environment.store.transaction {
                try $0.append(
                    AuditEvent(occurredAt: now, actor: user.id, action: "user.recovery_code_used", subject: user.id))
            }
        }
        let response = try SignInCompletion.finish(
            user: user, persistent: pending.isPersistent, methods: methods, pending: authorization,
            returnPath: pending.returnPath, request: request, environment: environment)
        environment.metrics.recordSignIn(.success)
        return response
    }
}
