import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// `GET /account/two-step` shows enrollment (or, once enrolled, management); `POST` confirms the
/// first code (`action=confirm`, `otp`, `confirm_password`), makes new recovery codes
/// (`action=regenerate`) or turns two-step verification off (`action=remove`), each with the
/// current password.
///
/// The password is required to change what protects the account, so a browser left signed in
/// or a stolen session cookie is not enough to turn the second step off, nor to turn it on with
/// the thief's authenticator and lock the owner out; wrong guesses are throttled per account
/// with sign-in's growing delays, as ``PasswordChangeEndpoint`` does. Turning it off ends every
/// other browser session (as a password change does) and mails a notice; so does turning it
/// on, and that mail carries a link that turns it off again (``TwoStepUndoLink``): the owner's
/// way back if it was not them, which a password reset alone does not give.
struct TwoStepEndpoint: Sendable {
    /// The page's path.
    static let path = "/account/two-step"

    /// Wrong passwords and wrong first codes: 5 an hour per account, then growing delays.
    static func limits(userID: String) -> [AttemptThrottle.Limit] {
        AttemptThrottle.accountPageLimits(purpose: "two-step-settings", userID: userID)
    }

    /// The provider's store, keys, mailer and clock.
    let environment: PageEnvironment

    private var verification: TwoStepVerification { TwoStepVerification(environment: environment) }

    /// Adds `GET` and `POST /account/two-step`, both async.
    func register(on router: Router) {
        router.page(Self.path, environment: environment, show: { try show($0) }, submit: { try act($0) })
    }

    private static let signInLocation = ReturnPath.signInLocation(returningTo: path)

    private static func purpose(_ signedIn: SignInSession) -> String {
        "two-step:" + signedIn.session.hashedID
    }

    private func show(_ request: Request) throws -> Response {
        guard let signedIn = try SignInSession.current(in: request, environment: environment) else {
            return PageLayout.redirect(to: Self.signInLocation, status: .found)
        }
        let (secret, cookie) = CSRFProtection.ensureSecret(in: request, secure: environment.usesHTTPS)
        let token = CSRFProtection.token(secret: secret, purpose: Self.purpose(signedIn))
        var response = try page(for: signedIn, csrfToken: token, language: request.pageLanguage())
        if let cookie { response.setCookie(cookie) }
        return response
    }

    /// Management when enrolled; else enrollment, with the pending secret (made now if none is
    /// waiting, so reloading the page keeps the QR code the app may have scanned).
    private func page(
        for signedIn: SignInSession, csrfToken: String, language: PageLanguage, error: Localized? = nil,
        status: HTTPStatus = .ok
    ) throws -> Response {
        let user = signedIn.user
        let now = environment.now()
        let existing = try environment.store.read { try $0.twoStepEnrollment(userID: user.id) }
        if let existing, existing.isConfirmed {
            let remaining = try environment.store.read { try $0.unusedRecoveryCodeCount(userID: user.id) }
            return TwoStepPages.management(
                user: user, remaining: remaining, csrfToken: csrfToken, errors: [:], alert: error,
                language: language, status: status)
        }
        var secret: [UInt8]?
        if let existing, now.timeIntervalSince(existing.createdAt) < TwoStepVerification.pendingEnrollmentLifetime {
            secret = verification.secret(of: existing)
        }
        if secret == nil {
            let fresh = TwoStepVerification.makeSecret()
            let enrollment = TwoStepEnrollment(
                userID: user.id, sealedSecret: try verification.seal(fresh, userID: user.id), createdAt: now)
            guard try environment.store.transaction({ try $0.savePendingTwoStepEnrollment(enrollment) }) else {
                // Confirmed meanwhile (another tab): show management instead.
                return try page(for: signedIn, csrfToken: csrfToken, language: language)
            }
            secret = fresh
        }
        guard let secret else { throw PageProblem.serverFailure }
        let uri = TwoStepVerification.keyURI(secret: secret, email: user.email, issuer: PageLayout.platformName)
        return TwoStepPages.enrollment(
            user: user, keyURI: uri, secret: secret, csrfToken: csrfToken, error: error, language: language,
            status: status)
    }

    private func act(_ request: Request) throws -> Response {
        let form = try request.pageForm()
        guard let signedIn = try SignInSession.current(in: request, environment: environment) else {
            return PageLayout.redirect(to: Self.signInLocation, status: .seeOther)
        }
        guard
            CSRFProtection.verify(
                form, request: request, purpose: Self.purpose(signedIn), secure: environment.usesHTTPS)
        else {
            throw PageProblem.forgedForm(appName: nil)
        }
        let language = request.pageLanguage()
        let csrfToken = form[CSRFProtection.fieldName] ?? ""
        switch form["action"] {
        case "confirm":
            return try confirm(
                form["otp"] ?? "", password: form["confirm_password"] ?? "", for: signedIn, csrfToken: csrfToken,
                language: language)
        case "regenerate", "remove":
            let action = form["action"] ?? ""
            return try withPassword(
                form[action + "_password"] ?? "", action: action, for: signedIn, csrfToken: csrfToken,
                language: language)
        default:
            throw PageProblem.malformedRequest(appName: nil)
        }
    }

    /// Whether `password` is `user`'s, checked through the sign-in gate like every other
    /// password check, so a flood of this page is shed with the busy page instead of queueing
    /// Argon2id hashes without limit.
    private func isPassword(_ password: String, of user: UserRecord) throws -> Bool {
        guard password.utf8.count <= PasswordPolicy.maximumLength else { return false }
        guard
            let matches = environment.passwordChecks.admit({
                environment.passwords.verify(password, against: user.passwordHash)
            })
        else { throw PageProblem.busy }
        return matches
    }

    private func confirm(
        _ code: String, password: String, for signedIn: SignInSession, csrfToken: String, language: PageLanguage
    ) throws -> Response {
        let user = signedIn.user
        guard !code.trimmingCharacters(in: .whitespaces).isEmpty else {
            return try page(
                for: signedIn, csrfToken: csrfToken, language: language, error: TwoStepText.codeMissing,
                status: .badRequest)
        }
        guard !password.isEmpty else {
            return try page(
                for: signedIn, csrfToken: csrfToken, language: language, error: PasswordChangeText.currentMissing,
                status: .badRequest)
        }
        let (refusal, attempts) = try AttemptThrottle(environment: environment).attempt(
            Self.limits(userID: signedIn.user.id)
        ) {
            try page(for: signedIn, csrfToken: csrfToken, language: language, error: $0, status: .tooManyRequests)
        }
        if let refusal { return refusal }
        guard try isPassword(password, of: user) else {
            return try page(
                for: signedIn, csrfToken: csrfToken, language: language, error: PasswordChangeText.currentWrong,
                status: .badRequest)
        }
        let now = environment.now()
        guard let pending = try environment.store.read({ try $0.twoStepEnrollment(userID: user.id) }),
            !pending.isConfirmed,
            let secret = verification.secret(of: pending),
            let step = verification.matchingStep(of: code, secret: secret)
        else {
            return try page(
                for: signedIn, csrfToken: csrfToken, language: language, error: TwoStepText.codeWrong,
                status: .badRequest)
        }
        let codes = try environment.store.transaction { transaction -> [String]? in
            guard
                try transaction.confirmTwoStepEnrollment(
                    userID: user.id, sealedSecret: pending.sealedSecret, step: step, at: now)
            else { return nil }
            try SignalAnnouncement.announce(
                [.credentialChange(credentialType: "app", changeType: "create")], userID: user.id, now: now,
                in: transaction)
            try transaction.append(
                AuditEvent(occurredAt: now, actor: user.id, action: "user.two_step_on", subject: user.id))
            return try verification.replaceRecoveryCodes(userID: user.id, in: transaction)
        }
        guard let codes else {
            return try page(
                for: signedIn, csrfToken: csrfToken, language: language, error: TwoStepText.codeWrong,
                status: .badRequest)
        }
        try? AttemptThrottle(environment: environment).forgive(
            attempts, clearing: Self.limits(userID: user.id).map(\.key))
        var confirmed = pending
        confirmed.confirmedAt = now
        TwoStepNotice.send(
            to: user, enabled: true, at: now, language: language, environment: environment,
            undoLink: TwoStepUndoLink(environment: environment).url(for: confirmed, now: now))
        return TwoStepPages.recoveryCodes(codes, language: language, notice: TwoStepText.turnedOn)
    }

    private func withPassword(
        _ password: String, action: String, for signedIn: SignInSession, csrfToken: String, language: PageLanguage
    ) throws -> Response {
        let user = signedIn.user
        guard try verification.confirmedEnrollment(userID: user.id) != nil else {
            return PageLayout.redirect(to: Self.path, status: .seeOther)
        }
        func again(_ message: Localized, alert: Bool = false, status: HTTPStatus) throws -> Response {
            let remaining = try environment.store.read { try $0.unusedRecoveryCodeCount(userID: user.id) }
            return TwoStepPages.management(
                user: user, remaining: remaining, csrfToken: csrfToken, errors: alert ? [:] : [action: message],
                alert: alert ? message : nil, language: language, status: status)
        }
        guard !password.isEmpty else { return try again(PasswordChangeText.currentMissing, status: .badRequest) }
        let (refusal, attempts) = try AttemptThrottle(environment: environment).attempt(
            Self.limits(userID: signedIn.user.id)
        ) { try again($0, alert: true, status: .tooManyRequests) }
        if let refusal { return refusal }
        guard try isPassword(password, of: user) else {
            return try again(PasswordChangeText.currentWrong, status: .badRequest)
        }
        try? AttemptThrottle(environment: environment).forgive(
            attempts, clearing: Self.limits(userID: user.id).map(\.key))
        let now = environment.now()
        if action == "regenerate" {
            let codes = try environment.store.transaction { transaction in
                try transaction.append(
                    AuditEvent(
                        occurredAt: now, actor: user.id, action: "user.recovery_codes_renewed", subject: user.id))
                return try verification.replaceRecoveryCodes(userID: user.id, in: transaction)
            }
            return TwoStepPages.recoveryCodes(codes, language: language, notice: nil)
        }
        try environment.store.transaction { transaction in
            guard try transaction.deleteTwoStepEnrollment(userID: user.id) else { return }
            try SignalAnnouncement.announce(
                [.credentialChange(credentialType: "app", changeType: "delete")], userID: user.id, now: now,
                in: transaction)
            let ended = try OtherSessionsSignOut.endSessions(
                userID: user.id, keeping: signedIn.session.hashedID, now: now, in: transaction)
            try transaction.append(
                AuditEvent(
                    occurredAt: now, actor: user.id, action: "user.two_step_off", subject: user.id,
                    details: (["sessions_ended": .integer(Int64(ended))] as JSONValue).jsonString))
        }
        TwoStepNotice.send(to: user, enabled: false, at: now, language: language, environment: environment)
        var query = [("done", AccountPage.Notice.twoStepOff.rawValue)]
        if language != .english { query.append(("ui_locales", language.rawValue)) }
        return PageLayout.redirect(to: AuthorizationResponse.location(AccountEndpoint.path, query), status: .seeOther)
    }
}
