import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// `GET`/`POST /account/close`: a person closes their own account, in two steps; then
/// `GET /account/closed` says goodbye, signed out.
///
/// 1. Re-authentication. The password again (throttled per account like the change-password
///    form, hashed off the HTTP threads), or, as adding a passkey accepts, a sign-in with a
///    passkey at most five minutes old (``PasskeyEndpoint/reauthenticationWindow``): the page
///    links to `/login?return_to=/account/close` for it, and an account without a password
///    has only that way.
/// 2. Confirmation. Its form carries `close_until` (five minutes ahead) and a CSRF token whose
///    purpose binds the session and that time, so only a browser that passed step 1 can post
///    it, and only for a while; no server-side state is needed, so any node takes it.
///
/// On confirmation, one transaction (``AccountClosure``) tells the apps (back-channel logout,
/// RISC `account-purged`), revokes everything and deletes the account; the audit row keeps
/// only the account's id and counts. Then a mail confirms it to the address it had, and the
/// browser's cookies are cleared. A refused post (a forged form, a wrong password, a
/// confirmation that ran out) changes nothing.
struct AccountCloseEndpoint: Sendable {
    /// The page's path.
    static let path = "/account/close"
    /// The goodbye page.
    static let closedPath = "/account/closed"
    /// The hidden field that dates the confirmation form.
    static let untilField = "close_until"
    /// How long the confirmation form is accepted after the password.
    static let confirmationLifetime: TimeInterval = 300

    /// Wrong passwords: 5 an hour per account, then growing delays (as sign-in).
    static func limits(userID: String) -> [AttemptThrottle.Limit] {
        AttemptThrottle.accountPageLimits(purpose: "account-close", userID: userID)
    }

    /// The provider's store, hasher, mailer and clock.
    let environment: PageEnvironment

    /// Adds `GET` and `POST /account/close` and `GET /account/closed`.
    func register(on router: Router) {
        router.page(Self.path, environment: environment, show: { try show($0) }, submit: { try submit($0) })
        router.page(
            Self.closedPath, environment: environment,
            show: { AccountClosePage.closed(language: $0.pageLanguage()) },
            submit: { _ in PageLayout.redirect(to: Self.closedPath, status: .seeOther) })
    }

    /// Where a browser without a session goes: the sign-in page, returning here.
    static let signInLocation = ReturnPath.signInLocation(returningTo: path)

    private static func purpose(_ signedIn: SignInSession) -> String {
        "account-close:" + signedIn.session.hashedID
    }

    private static func confirmPurpose(_ signedIn: SignInSession, until: Int64) -> String {
        "account-close-confirm:\(signedIn.session.hashedID):\(until)"
    }

    private func show(_ request: Request) throws -> Response {
        guard let signedIn = try SignInSession.current(in: request, environment: environment) else {
            return PageLayout.redirect(to: Self.signInLocation, status: .found)
        }
        let (secret, cookie) = CSRFProtection.ensureSecret(in: request, secure: environment.usesHTTPS)
        var page = try page(for: signedIn, secret: secret, language: request.pageLanguage())
        if try recentPasskeySignIn(signedIn) { page = confirmation(page, for: signedIn, secret: secret) }
        var response = page.response()
        if let cookie { response.setCookie(cookie) }
        return response
    }

    /// The first step's page for `signedIn`.
    private func page(for signedIn: SignInSession, secret: String, language: PageLanguage) throws -> AccountClosePage {
        let passkeys = try environment.store.read { try $0.passkeyCredentials(userID: signedIn.user.id) }
        return AccountClosePage(
            user: signedIn.user, step: .reauthenticate,
            csrfToken: CSRFProtection.token(secret: secret, purpose: Self.purpose(signedIn)), language: language,
            hasPassword: !signedIn.user.passwordHash.isEmpty, hasPasskeys: !passkeys.isEmpty)
    }

    /// `page` turned into the confirmation, good for ``confirmationLifetime``.
    private func confirmation(_ page: AccountClosePage, for signedIn: SignInSession, secret: String)
        -> AccountClosePage
    {
        var page = page
        let until = Int64(environment.now().addingTimeInterval(Self.confirmationLifetime).timeIntervalSince1970)
        page.step = .confirm(until: until)
        page.csrfToken = CSRFProtection.token(secret: secret, purpose: Self.confirmPurpose(signedIn, until: until))
        return page
    }

    /// Whether this browser signed in with a passkey within the re-authentication window.
    private func recentPasskeySignIn(_ signedIn: SignInSession) throws -> Bool {
        try PasskeyReauthentication.isRecent(signedIn, environment: environment)
    }

    private func submit(_ request: Request) throws -> Response {
        let form = try request.pageForm()
        guard let signedIn = try SignInSession.current(in: request, environment: environment) else {
            return PageLayout.redirect(to: Self.signInLocation, status: .seeOther)
        }
        let secure = environment.usesHTTPS
        guard let secret = CSRFProtection.secret(in: request, secure: secure) else {
            throw PageProblem.forgedForm(appName: nil)
        }
        let language = request.pageLanguage()
        if let until = form[Self.untilField] {
            guard form.values(for: Self.untilField).count == 1, let seconds = Int64(until),
                CSRFProtection.verify(
                    form, request: request, purpose: Self.confirmPurpose(signedIn, until: seconds), secure: secure)
            else { throw PageProblem.forgedForm(appName: nil) }
            guard environment.now().timeIntervalSince1970 < Double(seconds) else {
                var page = try page(for: signedIn, secret: secret, language: language)
                page.alert = AccountCloseText.expired
                page.status = .badRequest
                return page.response()
            }
            return try close(signedIn, language: language)
        }
        guard CSRFProtection.verify(form, request: request, purpose: Self.purpose(signedIn), secure: secure) else {
            throw PageProblem.forgedForm(appName: nil)
        }
        var page = try page(for: signedIn, secret: secret, language: language)
        if try recentPasskeySignIn(signedIn) { return confirmation(page, for: signedIn, secret: secret).response() }
        let user = signedIn.user
        let password = form["current_password"] ?? ""
        guard !user.passwordHash.isEmpty, !password.isEmpty else {
            if page.hasPassword { page.passwordError = AccountCloseText.passwordMissing }
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
        let checked = environment.passwordChecks.admit {
            environment.passwords.verify(password, against: user.passwordHash)
        }
        guard let matches = checked else { throw PageProblem.busy }
        guard matches else {
            page.passwordError = AccountCloseText.passwordWrong
            page.status = .badRequest
            return page.response()
        }
        try? throttle.forgive(attempts, clearing: Self.limits(userID: user.id).map(\.key))
        return confirmation(page, for: signedIn, secret: secret).response()
    }

    /// Closes the account in one transaction, mails the confirmation, clears the cookies and
    /// sends the browser to the goodbye page.
    private func close(_ signedIn: SignInSession, language: PageLanguage) throws -> Response {
        let user = signedIn.user
        let now = environment.now()
        let closed = try environment.store.transaction { transaction in
            try AccountClosure.close(userID: user.id, actor: user.id, action: "user.close", now: now, in: transaction)
        }
        guard closed != nil else { return PageLayout.redirect(to: Self.signInLocation, status: .seeOther) }
        AccountClosedNotice.send(to: user, at: now, language: language, environment: environment)
        let goodbye =
            language == .english
            ? Self.closedPath : AuthorizationResponse.location(Self.closedPath, [("ui_locales", language.rawValue)])
        var response = PageLayout.redirect(to: goodbye, status: .seeOther)
        var expired = Cookie.expired(name: SignInSession.cookieName(environment))
        expired.isSecure = environment.usesHTTPS
        response.setCookie(expired)
        response.setCookie(ReturnConfirmation.expiredCookie(secure: environment.usesHTTPS))
        return response
    }
}
