import PorticoHTTP
import PorticoStore

/// The "Continue as …" page (`GET /continue`): shown when an app asks and the browser holds a
/// "keep me signed in" session that nobody has confirmed since the browser started, as Login
/// with Amazon does. It names the person and the e-mail address, offers one primary Continue
/// button, and "Not you?", which signs this browser out and asks for a password instead.
///
/// Both buttons post `decision` (`continue` / `switch`) from one form with the CSRF token, so a
/// press of Enter continues.
struct ContinuePage {
    /// The app asking.
    var client: Client
    /// The person the session belongs to.
    var user: UserRecord
    /// The sealed pending request.
    var sealedRequest: String
    /// The CSRF token, bound to the request and the session.
    var csrfToken: String

    /// The language of the page.
    var language: PageLanguage
    /// Why the page is shown: a kept session to confirm (true), or a public app's remembered
    /// consent to replay only after a click (false).
    var keptSignedIn: Bool = true

    /// The page as a response.
    func response() -> Response {
        let name = HTML.escape(user.name)
        let text = ContinueText.self
        let lang = language
        let isPublic = AuthorizationFlow.asksBeforeReplayingConsent(client)
        let title = isPublic ? text.title(name, app: HTML.escape(client.name)) : text.title(name)
        let plainTitle = isPublic ? text.title(user.name, app: client.name) : text.title(user.name)
        let reason = keptSignedIn ? text.kept[lang] : text.allowedBefore[lang]
        let html = """
            \(AppHeader.html(for: client, line: text.wants[lang]))
            <h1 id="continue-as">\(title[lang])</h1>
            <p class="lead">\(text.signedInAs(HTML.escape(user.email))[lang]) \(reason)</p>
            <form method="post" action="\(AuthorizationFlow.continuePath)">
            \(HTML.hiddenField(name: CSRFProtection.fieldName, value: csrfToken))
            \(HTML.hiddenField(name: AuthorizationFlow.requestField, value: sealedRequest))
            <button type="submit" class="button primary" name="decision" value="continue" \
            aria-describedby="continue-as">\(text.continueButton[lang])</button>
            <button type="submit" class="textlink" name="decision" value="switch" id="not-you">\
            \(text.notYou[lang])</button>
            </form>

            """
        return PageLayout.page(
            title: plainTitle[lang], content: html,
            account: "<div class=\"account\"><span class=\"who\">\(name)</span></div>", language: lang)
    }
}
