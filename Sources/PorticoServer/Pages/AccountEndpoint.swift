import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// `GET /account` shows Your Account; `POST /account` removes an app or ends sessions.
///
/// Signing in is required: without a session the browser goes to `/login?return_to=/account`
/// and comes back after the password. Every form is CSRF-checked against the session that
/// showed it. The actions, one per post:
///
/// - `revoke=<client id>`: removes the consent and revokes every refresh family of that app
///   for this person, in one transaction; access tokens already issued stop working at the
///   resource endpoints, which require the consent they were issued under. The next
///   authorization asks consent again.
/// - `end_session=<handle>`: signs out another browser. The handle is
///   HMAC-SHA256(this browser's session token, that session's hash): opaque, meaningful only
///   to this session, and never the session id or its stored hash.
/// - `end_others`: signs out every other browser.
/// - `end_companion=<companion session id>`: signs out a Portico agent (``AccountCompanions``).
/// - `sign_out`: signs out this browser and shows "You are signed out".
///
/// Each action is written to the audit log.
struct AccountEndpoint: Sendable {
    /// The page's path.
    static let path = "/account"

    /// The provider's store, keys and clock.
    let environment: PageEnvironment

    /// Adds `GET` and `POST /account`, both async (they read and write the store).
    func register(on router: Router) {
        router.page(Self.path, environment: environment, show: { try show($0) }, submit: { try act($0) })
    }

    /// Where a browser without a session goes: the sign-in page, returning here.
    static let signInLocation = ReturnPath.signInLocation(returningTo: path)

    private func show(_ request: Request) throws -> Response {
        guard let signedIn = try SignInSession.current(in: request, environment: environment) else {
            return PageLayout.redirect(to: Self.signInLocation, status: .found)
        }
        let now = environment.now()
        let language = request.pageLanguage()
        let (apps, sessions) = try environment.store.read { transaction in
            var apps: [AccountPage.App] = []
            for consent in try transaction.consents(userID: signedIn.user.id) {
                guard let client = try transaction.client(id: consent.clientID) else { continue }
                let permissions =
                    try ScopeCatalog.builtIn.map(\.name).filter(consent.scopes.contains)
                    .map { try ScopeCatalog.description(of: $0, in: transaction, language: language) }
                    + consent.scopes.subtracting(ScopeCatalog.builtInNames).sorted().map {
                        try ScopeCatalog.description(of: $0, in: transaction, language: language)
                    }
                apps.append(AccountPage.App(client: client, consent: consent, permissions: permissions))
            }
            return (apps, try transaction.sessions(userID: signedIn.user.id).filter { $0.expiresAt > now })
        }
        let devices = sessions.map { session in
            AccountPage.Device(
                session: session, handle: handle(of: session, for: signedIn),
                isCurrent: session.hashedID == signedIn.session.hashedID)
        }
        let (secret, cookie) = CSRFProtection.ensureSecret(in: request, secure: environment.usesHTTPS)
        var page = AccountPage(
            user: signedIn.user, apps: apps, devices: devices.filter(\.isCurrent) + devices.filter { !$0.isCurrent },
            csrfToken: CSRFProtection.token(
                secret: secret, purpose: CSRFProtection.accountPurpose(sessionHashedID: signedIn.session.hashedID)),
            notice: request.query["done"].flatMap(AccountPage.Notice.init(rawValue:)), language: language)
        page.linkedAccounts = try environment.store.read {
            try LinkedAccountsSection.load(userID: signedIn.user.id, in: $0)
        }
        page.companions = try AccountCompanions.sessions(of: signedIn.user.id, environment: environment)
        page.twoStep = try environment.store.read { try TwoStepSection.load(userID: signedIn.user.id, in: $0) }
        page.passkeys = try environment.store.read { try PasskeySection.load(userID: signedIn.user.id, in: $0) }
        var response = page.response()
        if let cookie { response.setCookie(cookie) }
        if let renewed = try SignInSession.keepAlive(signedIn, environment: environment) { response.setCookie(renewed) }
        return response
    }

    private func act(_ request: Request) throws -> Response {
        guard let (form, signedIn) = try AccountForm.read(request, environment: environment) else {
            return PageLayout.redirect(to: Self.signInLocation, status: .seeOther)
        }
        let actions = ["revoke", "end_session", "end_others", "sign_out", AccountCompanions.field].filter {
            !form.values(for: $0).isEmpty
        }
        guard actions.count == 1, form.values(for: actions[0]).count == 1, let value = form[actions[0]] else {
            throw PageProblem.malformedRequest(appName: nil)
        }
        switch actions[0] {
        case "revoke":
            try revoke(clientID: value, for: signedIn)
            return done(.removed)
        case "end_session":
            try endSession(handle: value, for: signedIn)
            return done(.signedOut)
        case AccountCompanions.field:
            try AccountCompanions.end(sessionID: value, for: signedIn, environment: environment)
            return done(.signedOut)
        case "end_others":
            try endOtherSessions(for: signedIn)
            return done(.signedOutOthers)
        default:
            let expired = try SignInSession.end(in: request, environment: environment)
            try audit(signedIn, "session.logout", subject: signedIn.user.id, details: [:])
            var response = PageLayout.redirect(to: LogoutEndpoint.path, status: .seeOther)
            response.setCookie(expired)
            response.setCookie(ReturnConfirmation.expiredCookie(secure: environment.usesHTTPS))
            LoginStatus.signedOut(&response, environment: environment)
            return response
        }
    }

    private func done(_ notice: AccountPage.Notice) -> Response {
        PageLayout.redirect(
            to: AuthorizationResponse.location(Self.path, [("done", notice.rawValue)]), status: .seeOther)
    }

    private func revoke(clientID: String, for signedIn: SignInSession) throws {
        let now = environment.now()
        try environment.store.transaction { transaction in
            try AppRemoval.remove(
                clientID: clientID, userID: signedIn.user.id, action: "consent.revoke",
                reason: "removed in Your Account", now: now, accessTokenLifetime: environment.lifetimes.accessToken,
                in: transaction)
        }
    }

    private func endSession(handle: String, for signedIn: SignInSession) throws {
        let now = environment.now()
        try environment.store.transaction { transaction in
            let target = try transaction.sessions(userID: signedIn.user.id).first { session in
                session.hashedID != signedIn.session.hashedID
                    && ConstantTime.equals(handle, self.handle(of: session, for: signedIn))
            }
            guard let target else { return }
            try BackChannelLogout.enqueueSessionEnd(browserSessionHashedID: target.hashedID, now: now, in: transaction)
            try NativeSSO.endSessions(browserSessionHashedID: target.hashedID, now: now, in: transaction)
            guard try transaction.deleteSession(hashedID: target.hashedID) else { return }
            try transaction.append(
                AuditEvent(
                    occurredAt: now, actor: signedIn.user.id, action: "session.end_other", subject: signedIn.user.id,
                    details: (["user_agent": .string(UserAgentSummary.describe(target.userAgent))] as JSONValue)
                        .jsonString))
        }
    }

    private func endOtherSessions(for signedIn: SignInSession) throws {
        let now = environment.now()
        try environment.store.transaction { transaction in
            let ended = try OtherSessionsSignOut.endSessions(
                userID: signedIn.user.id, keeping: signedIn.session.hashedID, now: now, in: transaction)
            try SignalAnnouncement.announce(
                [.sessionRevoked(reason: "signed out everywhere")], userID: signedIn.user.id, now: now, in: transaction)
            guard ended > 0 else { return }
            try transaction.append(
                AuditEvent(
                    occurredAt: now, actor: signedIn.user.id, action: "session.end_others", subject: signedIn.user.id,
                    details: (["count": .integer(Int64(ended))] as JSONValue).jsonString))
        }
    }

    private func audit(_ signedIn: SignInSession, _ action: String, subject: String, details: JSONValue) throws {
        let event = AuditEvent(
            occurredAt: environment.now(), actor: signedIn.user.id, action: action, subject: subject,
            details: details.jsonString)
        try environment.store.transaction { try $0.append(event) }
    }

    /// The opaque handle of `session` as `signedIn`'s page shows it.
    private func handle(of session: BrowserSession, for signedIn: SignInSession) -> String {
        Base64URL.encode(
            HMAC.authenticationCode(for: Array("session:\(session.hashedID)".utf8), key: Array(signedIn.token.utf8)))
    }
}
