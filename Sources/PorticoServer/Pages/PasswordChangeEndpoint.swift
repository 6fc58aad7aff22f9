import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// `GET /account/password` shows Your Account's change-password form; `POST` changes the
/// password of the signed-in person.
///
/// The current password is required (ASVS V2.1.5), so a browser left signed in, or a stolen
/// session cookie, is not enough to take the account over (an account made with a passkey
/// alone has none: a passkey sign-in of the last five minutes stands in for it); wrong guesses are throttled per
/// account with the sign-in's growing delays. The new password follows ``PasswordPolicy``
/// and is hashed off the HTTP threads (the page handlers are async).
///
/// What the change ends, as Google and Okta do for a change made while signed in: every
/// *other* browser session of the person (and the Native SSO device sessions begun in them),
/// while this browser stays signed in. Apps the person allowed keep their grants: they are
/// listed in Your Account with Remove, and revoking them all would sign the person out of
/// every device and app for a routine change. A password *reset* (the password was lost or
/// stolen) is different and does revoke every grant (``PasswordResetEndpoint``). Either way a
/// notice mail (``PasswordNotice``) tells the person, so an unwanted change is noticed.
struct PasswordChangeEndpoint: Sendable {
    /// The page's path.
    static let path = "/account/password"

    /// Wrong current passwords: 5 an hour per account, then growing delays (as sign-in).
    static func limits(userID: String) -> [AttemptThrottle.Limit] {
        AttemptThrottle.accountPageLimits(purpose: "password-change", userID: userID)
    }

    /// The provider's store, hasher, mailer and clock.
    let environment: PageEnvironment

    /// Adds `GET` and `POST /account/password`, both async.
    func register(on router: Router) {
        router.page(Self.path, environment: environment, show: { try show($0) }, submit: { try change($0) })
    }

    /// Where a browser without a session goes: the sign-in page, returning here.
    static let signInLocation = ReturnPath.signInLocation(returningTo: path)

    private static func purpose(_ signedIn: SignInSession) -> String {
        "password-change:" + signedIn.session.hashedID
    }

    private func show(_ request: Request) throws -> Response {
        guard let signedIn = try SignInSession.current(in: request, environment: environment) else {
            return PageLayout.redirect(to: Self.signInLocation, status: .found)
        }
        let (secret, cookie) = CSRFProtection.ensureSecret(in: request, secure: environment.usesHTTPS)
        var page = PasswordChangePage(
            user: signedIn.user, csrfToken: CSRFProtection.token(secret: secret, purpose: Self.purpose(signedIn)),
            language: request.pageLanguage())
        if page.setsFirstPassword {
            page.recentPasskeySignIn = try PasskeyReauthentication.isRecent(signedIn, environment: environment)
        }
        var response = page.response()
        if let cookie { response.setCookie(cookie) }
        return response
    }

    private func change(_ request: Request) throws -> Response {
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
        let user = signedIn.user
        var page = PasswordChangePage(
            user: user, csrfToken: form[CSRFProtection.fieldName] ?? "", language: request.pageLanguage())
        let setsFirst = page.setsFirstPassword
        if setsFirst {
            page.recentPasskeySignIn = try PasskeyReauthentication.isRecent(signedIn, environment: environment)
            // Without a recent passkey sign-in nothing stands in for the missing password.
            guard page.recentPasskeySignIn else {
                page.status = .forbidden
                return page.response()
            }
        }
        let current = setsFirst ? "" : form["current_password"] ?? ""
        let password = form["password"] ?? ""
        let confirmation = form["password_confirmation"] ?? ""
        if current.isEmpty && !setsFirst { page.errors["current_password"] = PasswordChangeText.currentMissing }
        if password.isEmpty {
            page.errors["password"] = SignupText.passwordMissing
        } else if let problem = PasswordPolicy.problem(with: password, email: user.email, name: user.name) {
            page.errors["password"] = problem.message
        } else if confirmation.isEmpty {
            page.errors["password_confirmation"] = PasswordResetText.confirm
        } else if !ConstantTime.equals(password, confirmation) {
            page.errors["password_confirmation"] = PasswordResetText.mismatch
        } else if !setsFirst, ConstantTime.equals(password, current) {
            page.errors["password"] = PasswordChangeText.unchanged
        }
        guard page.errors.isEmpty else {
            page.status = .badRequest
            return page.response()
        }
        // Count the guess before the hash is computed, so guessing costs the guesser.
        let throttle = AttemptThrottle(environment: environment)
        let (refusal, attempts) = try throttle.attempt(Self.limits(userID: user.id)) { text in
            page.alert = text
            page.status = .tooManyRequests
            return page.response()
        }
        if let refusal { return refusal }
        let checked =
            setsFirst
            ? true
            : environment.passwordChecks.admit {
                environment.passwords.verify(current, against: user.passwordHash)
            }
        guard let matches = checked else { throw PageProblem.busy }
        guard matches else {
            page.errors["current_password"] = PasswordChangeText.currentWrong
            page.status = .badRequest
            return page.response()
        }
        let hashed: String?
        do {
            hashed = try environment.passwordChecks.admit { try environment.passwords.hash(password) }
        } catch {
            throw PageProblem.serverFailure
        }
        guard let hash = hashed else { throw PageProblem.busy }
        let now = environment.now()
        let changed = try environment.store.transaction { transaction -> Bool in
            guard var account = try transaction.user(id: user.id), !account.isDisabled,
                account.passwordHash == user.passwordHash
            else { return false }
            account.passwordHash = hash
            account.updatedAt = now
            try transaction.update(account)
            let ended = try OtherSessionsSignOut.endSessions(
                userID: account.id, keeping: signedIn.session.hashedID, now: now, in: transaction)
            try transaction.deletePasswordResets(userID: account.id)
            try SignalAnnouncement.announce(
                [.credentialChange(credentialType: "password", changeType: setsFirst ? "create" : "update")],
                userID: account.id, now: now, in: transaction)
            try transaction.append(
                AuditEvent(
                    occurredAt: now, actor: account.id,
                    action: setsFirst ? "user.password_set" : "user.password_change", subject: account.id,
                    details: (["sessions_ended": .integer(Int64(ended))] as JSONValue).jsonString))
            return true
        }
        // Another change won the race: show the form again rather than claim success.
        guard changed else {
            page.errors["current_password"] = PasswordChangeText.currentWrong
            page.status = .badRequest
            return page.response()
        }
        try? throttle.forgive(attempts, clearing: Self.limits(userID: user.id).map(\.key))
        PasswordNotice.send(to: user, at: now, byReset: false, language: page.language, environment: environment)
        var query = [("done", AccountPage.Notice.passwordChanged.rawValue)]
        if page.language != .english { query.append(("ui_locales", page.language.rawValue)) }
        return PageLayout.redirect(
            to: AuthorizationResponse.location(AccountEndpoint.path, query), status: .seeOther)
    }
}
