import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// `GET /account/two-step/undo?token=…` asks whether to turn off the two-step verification the
/// mailed link names (``TwoStepUndoLink``); `POST` turns it off, ends every browser session of
/// the person, records an audit event and mails the "turned off" notice.
///
/// No sign-in is needed: the owner it is for may be locked out by someone else's
/// authenticator. `GET` only asks, so a mail scanner that follows links changes nothing. A
/// dead link (used, expired, forged) gets one and the same page.
struct TwoStepUndoEndpoint: Sendable {
    /// The provider's store, keys, mailer and clock.
    let environment: PageEnvironment

    private var link: TwoStepUndoLink { TwoStepUndoLink(environment: environment) }

    /// Adds `GET` and `POST /account/two-step/undo`, both async.
    func register(on router: Router) {
        router.page(TwoStepUndoLink.path, environment: environment, show: { try show($0) }, submit: { try undo($0) })
    }

    /// The CSRF purpose of the form: bound to the token, so it works for this link only.
    static func purpose(token: String) -> String {
        "two-step-undo:" + Base64URL.encode(Digest.sha256.hash(token))
    }

    private func show(_ request: Request) throws -> Response {
        let token = request.query["token"] ?? ""
        let language = request.pageLanguage()
        let now = environment.now()
        guard
            let enrollment = try environment.store.read({ try link.enrollment(for: token, now: now, in: $0) }),
            let user = try environment.store.read({ try $0.user(id: enrollment.userID) })
        else { return Self.dead(language: language) }
        let (secret, cookie) = CSRFProtection.ensureSecret(in: request, secure: environment.usesHTTPS)
        let csrfToken = CSRFProtection.token(secret: secret, purpose: Self.purpose(token: token))
        let text = TwoStepText.self
        let action = TwoStepUndoLink.path + (language == .english ? "" : "?ui_locales=" + language.rawValue)
        let html = """
            <h1 id="undo-title">\(text.undoTitle[language])</h1>
            <p class="lead">\(HTML.escape(user.email))</p>
            <p>\(text.undoLead[language])</p>
            <form method="post" action="\(action)" aria-labelledby="undo-title">
            \(HTML.hiddenField(name: CSRFProtection.fieldName, value: csrfToken))
            \(HTML.hiddenField(name: "token", value: token))
            <button type="submit" class="button primary" id="two-step-undo">\(text.remove[language])</button>
            </form>

            """
        var response = PageLayout.page(title: text.undoTitle[language], content: html, language: language)
        if let cookie { response.setCookie(cookie) }
        return response
    }

    private func undo(_ request: Request) throws -> Response {
        let form = try request.pageForm()
        let token = form["token"] ?? ""
        guard
            CSRFProtection.verify(
                form, request: request, purpose: Self.purpose(token: token), secure: environment.usesHTTPS)
        else {
            throw PageProblem.forgedForm(appName: nil)
        }
        let language = request.pageLanguage()
        let now = environment.now()
        let user = try environment.store.transaction { transaction -> UserRecord? in
            guard let enrollment = try link.enrollment(for: token, now: now, in: transaction),
                let user = try transaction.user(id: enrollment.userID),
                try transaction.deleteTwoStepEnrollment(userID: user.id)
            else { return nil }
            let ended = try OtherSessionsSignOut.endSessions(userID: user.id, keeping: "", now: now, in: transaction)
            try transaction.append(
                AuditEvent(
                    occurredAt: now, actor: user.id, action: "user.two_step_off", subject: user.id,
                    details: (["sessions_ended": .integer(Int64(ended)), "by": .string("mailed_link")] as JSONValue)
                        .jsonString))
            return user
        }
        guard let user else { return Self.dead(language: language) }
        TwoStepNotice.send(to: user, enabled: false, at: now, language: language, environment: environment)
        let text = TwoStepText.self
        let html = """
            <h1>\(text.undoneTitle[language])</h1>
            <div class="notice" role="status" id="two-step-undone"><p>\(text.undone[language])</p></div>
            <a class="button primary" href="\(AccountEndpoint.path)">\(text.undoneContinue[language])</a>

            """
        var response = PageLayout.page(title: text.undoneTitle[language], content: html, language: language)
        var expired = Cookie.expired(name: SignInSession.cookieName(environment))
        expired.isSecure = environment.usesHTTPS
        response.setCookie(expired)
        return response
    }

    /// The page for a link that was used, has expired, or never existed (the same for all).
    static func dead(language: PageLanguage) -> Response {
        let text = TwoStepText.self
        let html = """
            <h1>\(text.undoDeadTitle[language])</h1>
            <div class="alert" role="alert" id="undo-link-dead"><p>\(text.undoDead[language])</p></div>
            <a class="button primary" href="\(AccountEndpoint.path)">\(text.undoneContinue[language])</a>

            """
        return PageLayout.page(
            title: text.undoDeadTitle[language], content: html, status: .badRequest, language: language)
    }
}
