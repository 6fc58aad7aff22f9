import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// `GET /password/reset?token=…` shows the new-password form of a mailed link; `POST` sets the
/// password, uses the link up, ends every browser session of the person and revokes all of
/// their refresh-token families (so a thief who had the old password, or a session, loses it),
/// records an audit event, and mails the person a notice (``PasswordNotice``).
///
/// The new password follows the sign-up rules (``PasswordPolicy``) and is hashed in an async
/// handler, off the HTTP threads. A link that was used, has expired or never existed gets one
/// and the same page.
struct PasswordResetEndpoint: Sendable {
    /// The page's path (the mailed link).
    static let path = "/password/reset"

    /// The provider's store, hasher and clock.
    let environment: PageEnvironment

    /// Adds `GET` and `POST /password/reset`, both async.
    func register(on router: Router) {
        router.page(Self.path, environment: environment, show: { try show($0) }, submit: { try change($0) })
    }

    private var minutes: Int { Int(PasswordForgotEndpoint.linkLifetime / 60) }

    private func show(_ request: Request) throws -> Response {
        let token = request.query["token"] ?? ""
        let language = request.pageLanguage()
        guard let user = try liveUser(for: token) else {
            return ResetPasswordPage.dead(minutes: minutes, language: language)
        }
        let (secret, cookie) = CSRFProtection.ensureSecret(in: request, secure: environment.usesHTTPS)
        let page = ResetPasswordPage(
            token: token,
            sealedRequest: AuthorizationFlow.liveSeal(
                request.query[AuthorizationFlow.requestField], environment: environment),
            csrfToken: CSRFProtection.token(secret: secret, purpose: Self.purpose(token: token)), email: user.email,
            language: language)
        var response = page.response()
        if let cookie { response.setCookie(cookie) }
        return response
    }

    private func change(_ request: Request) throws -> Response {
        let form = try request.pageForm()
        let token = form["token"] ?? ""
        guard
            CSRFProtection.verify(
                form, request: request, purpose: Self.purpose(token: token), secure: environment.usesHTTPS)
        else {
            throw PageProblem.forgedForm(appName: nil)
        }
        let language = request.pageLanguage()
        guard let user = try liveUser(for: token) else {
            return ResetPasswordPage.dead(minutes: minutes, language: language)
        }
        let seal = AuthorizationFlow.liveSeal(form[AuthorizationFlow.requestField], environment: environment)
        let password = form["password"] ?? ""
        let confirmation = form["password_confirmation"] ?? ""
        var errors: [String: Localized] = [:]
        if password.isEmpty {
            errors["password"] = SignupText.passwordMissing
        } else if let problem = PasswordPolicy.problem(with: password, email: user.email, name: user.name) {
            errors["password"] = problem.message
        } else if confirmation.isEmpty {
            errors["password_confirmation"] = PasswordResetText.confirm
        } else if !ConstantTime.equals(password, confirmation) {
            errors["password_confirmation"] = PasswordResetText.mismatch
        }
        guard errors.isEmpty else {
            return ResetPasswordPage(
                token: token, sealedRequest: seal, csrfToken: form[CSRFProtection.fieldName] ?? "", email: user.email,
                language: language, errors: errors
            ).response()
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
            guard case .redeemed(let reset) = try transaction.redeemPasswordReset(token: token, now: now),
                var account = try transaction.user(id: reset.userID)
            else { return false }
            account.passwordHash = hash
            // Following the mailed link proved the person receives mail at the address.
            account.isEmailVerified = true
            account.updatedAt = now
            try transaction.update(account)
            let sessions = try transaction.deleteSessions(userID: account.id)
            try NativeSSO.endSessions(userID: account.id, now: now, in: transaction)
            var families = 0
            for family in try transaction.refreshFamilies(userID: account.id, includeRevoked: false) {
                if try transaction.revokeRefreshFamily(id: family.id, now: now) { families += 1 }
            }
            try transaction.deletePasswordResets(userID: account.id)
            try SignalAnnouncement.announce(
                [
                    .credentialChange(credentialType: "password", changeType: "update"),
                    .sessionRevoked(reason: "password reset"),
                ], userID: account.id, now: now, in: transaction)
            try GrantRevocation.revokeAllAccessTokens(
                userID: account.id, now: now, accessTokenLifetime: environment.lifetimes.accessToken, in: transaction)
            for limit in AttemptThrottle.signInLimits(email: account.email, address: "").prefix(1) {
                try transaction.deleteThrottleAttempts(key: limit.key)
            }
            try transaction.append(
                AuditEvent(
                    occurredAt: now, actor: account.id, action: "user.password_reset", subject: account.id,
                    details: #"{"sessions_ended":\#(sessions),"refresh_families_revoked":\#(families)}"#))
            return true
        }
        guard changed else { return ResetPasswordPage.dead(minutes: minutes, language: language) }
        PasswordNotice.send(to: user, at: now, byReset: true, language: language, environment: environment)
        var response = ResetPasswordPage.done(sealedRequest: seal, language: language)
        var expired = Cookie.expired(name: SignInSession.cookieName(environment))
        expired.isSecure = environment.usesHTTPS
        response.setCookie(expired)
        return response
    }

    /// The enabled account a live (unused, unexpired) token resets, or nil.
    private func liveUser(for token: String) throws -> UserRecord? {
        guard SignInSession.isWellFormed(token) else { return nil }
        let now = environment.now()
        return try environment.store.read { transaction in
            guard let reset = try transaction.passwordReset(token: token), reset.usedAt == nil, now < reset.expiresAt,
                let user = try transaction.user(id: reset.userID), !user.isDisabled
            else { return nil }
            return user
        }
    }

    /// The CSRF purpose of the form: bound to the reset token, so it works for this link only.
    static func purpose(token: String) -> String {
        "password-reset:" + Base64URL.encode(Digest.sha256.hash(token))
    }
}
