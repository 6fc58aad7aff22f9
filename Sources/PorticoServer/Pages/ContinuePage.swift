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
    var user: User
    /// The sealed pending request.
    var sealedRequest: String
    /// The CSRF token, bound to the request and the session.
    var csrfToken: String

    /// The page's words, in one place for translation.
    enum Words {
        static func title(_ name: String) -> String { "Continue as \(name)" }
        static let wants = "wants you to sign in with your \(PageLayout.platformName) account"
        static func signedInAs(_ email: String) -> String {
            "You are signed in as <strong class=\"who-email\">\(email)</strong>."
        }
        static let kept = "This device kept you signed in."
        static let continueButton = "Continue"
        static let notYou = "Not you? Sign in with another account"
    }

    /// The page as a response.
    func response() -> Response {
        let name = HTML.escape(user.name)
        let html = """
            <div class="app">\(AppLogo.html(for: client))<div><div class="app-name">\(HTML.escape(client.name))</div>\
            <div class="small">\(HTML.escape(Words.wants))</div></div></div>
            <h1 id="continue-as">\(HTML.escape(Words.title(user.name)))</h1>
            <p class="lead">\(Words.signedInAs(HTML.escape(user.email))) \(HTML.escape(Words.kept))</p>
            <form method="post" action="\(AuthorizationFlow.continuePath)">
            \(HTML.hiddenField(name: CSRFProtection.fieldName, value: csrfToken))
            \(HTML.hiddenField(name: AuthorizationFlow.requestField, value: sealedRequest))
            <button type="submit" class="button primary" name="decision" value="continue" \
            aria-describedby="continue-as">\(HTML.escape(Words.continueButton))</button>
            <button type="submit" class="textlink" name="decision" value="switch" id="not-you">\
            \(HTML.escape(Words.notYou))</button>
            </form>

            """
        return PageLayout.page(
            title: Words.title(user.name), content: html,
            account: "<div class=\"account\"><span class=\"who\">\(name)</span></div>")
    }
}
