import Foundation
import PorticoHTTP
import PorticoStore

/// `GET /account/unlink?link_id=…` asks "Unlink your account at <host>?"; `POST` with
/// `unlink=<link_id>` unbinds (``AccountUnlinking``, the same path as the host's `DELETE`) and
/// returns to Your Account.
///
/// Signing in is required, the form carries Your Account's CSRF token (bound to the session)
/// and must come from this provider's own origin (``Router/page(_:environment:show:submit:)``), and
/// only the signed-in person's own links can be shown or unlinked: any other id is the same
/// "malformed request" page, so ids reveal nothing.
struct UnlinkEndpoint: Sendable {
    /// The page's path.
    static let path = "/account/unlink"
    /// The query parameter and form field naming the link.
    static let field = "link_id"
    /// The confirming button's name (its value is the link id).
    static let button = "unlink"

    /// The provider's store, keys and clock.
    let environment: PageEnvironment

    /// Adds `GET` and `POST /account/unlink`.
    func register(on router: Router) {
        router.page(Self.path, environment: environment, show: { try show($0) }, submit: { try unlink($0) })
    }

    private func show(_ request: Request) throws -> Response {
        guard let signedIn = try SignInSession.current(in: request, environment: environment) else {
            return PageLayout.redirect(to: AccountEndpoint.signInLocation, status: .found)
        }
        let language = request.pageLanguage()
        let values = request.query.values(for: Self.field)
        guard values.count == 1, let (link, host) = try ownLink(values[0], of: signedIn) else {
            throw PageProblem.malformedRequest(appName: nil)
        }
        let (secret, cookie) = CSRFProtection.ensureSecret(in: request, secure: environment.usesHTTPS)
        let token = CSRFProtection.token(
            secret: secret, purpose: CSRFProtection.accountPurpose(sessionHashedID: signedIn.session.hashedID))
        let text = LinkedAccountsText.self
        let name = HTML.escape(host.name)
        let html = """
            <div class="app">\(AppLogo.html(for: host))<div><div class="app-name">\(name)</div></div></div>
            <h1 id="unlink-title">\(text.confirmTitle(name)[language])</h1>
            <p class="lead">\(text.confirmEffect(name)[language])</p>
            <form method="post" action="\(Self.path)">
            \(HTML.hiddenField(name: CSRFProtection.fieldName, value: token))
            <div class="actions">
            <button type="submit" class="button primary" name="\(Self.button)" value="\(HTML.escape(link.id))">\
            \(text.unlink[language])</button>
            <a class="button secondary" href="\(AccountEndpoint.path)#linked-accounts">\(text.keep[language])</a>
            </div>
            </form>

            """
        var response = PageLayout.page(title: text.confirmTitle(host.name)[language], content: html, language: language)
        if let cookie { response.setCookie(cookie) }
        return response
    }

    private func unlink(_ request: Request) throws -> Response {
        guard let (form, signedIn) = try AccountForm.read(request, environment: environment) else {
            return PageLayout.redirect(to: AccountEndpoint.signInLocation, status: .seeOther)
        }
        let values = form.values(for: Self.button)
        guard values.count == 1 else { throw PageProblem.malformedRequest(appName: nil) }
        let linkID = values[0]
        let now = environment.now()
        let lifetime = environment.lifetimes.accessToken
        let userID = signedIn.user.id
        let found = try environment.store.transaction { transaction -> Bool in
            guard let link = try transaction.accountLink(id: linkID), link.platformUserID == userID else {
                return false
            }
            try AccountUnlinking.unbind(link, by: .person, now: now, accessTokenLifetime: lifetime, in: transaction)
            return true
        }
        guard found else { throw PageProblem.malformedRequest(appName: nil) }
        return PageLayout.redirect(
            to: AuthorizationResponse.location(
                AccountEndpoint.path, [("done", AccountPage.Notice.unlinked.rawValue)]),
            status: .seeOther)
    }

    /// The link `id` and its host, if the link is `signedIn`'s own and the host still exists.
    private func ownLink(_ id: String, of signedIn: SignInSession) throws -> (AccountLink, Client)? {
        try environment.store.read { transaction in
            guard let link = try transaction.accountLink(id: id), link.platformUserID == signedIn.user.id,
                let host = try transaction.client(id: link.hostClientID)
            else { return nil }
            return (link, host)
        }
    }
}
