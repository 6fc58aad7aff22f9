import PorticoHTTP
import PorticoStore

/// The two pages of RP-initiated logout: "Sign out of Portico?" (asked when the app's request
/// does not prove it speaks for the person signed in here) and "You are signed out".
enum LogoutPage {
    /// The pages' words, in one place for translation.
    enum Words {
        static let confirmTitle = "Sign out of \(PageLayout.platformName)?"
        static func asked(_ app: String?) -> String {
            (app.map { "\($0) asked" } ?? "You asked")
                + " to sign you out of \(PageLayout.platformName) on this device."
        }
        static func signedInAs(name: String, email: String) -> String {
            "You are signed in as <strong>\(name)</strong> (\(email))."
        }
        static let effect = "Signing out also ends “Keep me signed in” here. Apps you allowed keep their access."
        static let signOut = "Sign out"
        static let stay = "Stay signed in"
        static let doneTitle = "You are signed out"
        static let done = "You signed out of \(PageLayout.platformName) on this device."
        static func returnTo(_ app: String) -> String { "You can close this page or go back to \(app)." }
        static let signInAgain = "Sign in again"
    }

    /// The confirmation, posting `decision=logout` or `decision=stay` back to the endpoint with
    /// the CSRF token and the request's checked parameters.
    static func confirm(_ request: LogoutRequest, user: User, csrfToken: String) -> Response {
        var fields = HTML.hiddenField(name: CSRFProtection.fieldName, value: csrfToken)
        for (name, value) in request.formFields { fields += "\n" + HTML.hiddenField(name: name, value: value) }
        let html = """
            <h1 id="logout-title">\(HTML.escape(Words.confirmTitle))</h1>
            <p class="lead">\(HTML.escape(Words.asked(request.client?.name)))</p>
            <p>\(Words.signedInAs(name: HTML.escape(user.name), email: HTML.escape(user.email)))</p>
            <p class="small">\(HTML.escape(Words.effect))</p>
            <form method="post" action="\(LogoutEndpoint.path)">
            \(fields)
            <div class="actions">
            <button type="submit" class="button primary" name="decision" value="logout">\
            \(HTML.escape(Words.signOut))</button>
            <button type="submit" class="button secondary" name="decision" value="stay">\
            \(HTML.escape(Words.stay))</button>
            </div>
            </form>

            """
        return PageLayout.page(title: Words.confirmTitle, content: html)
    }

    /// The page after signing out when the app named no return address.
    static func signedOut(appName: String?) -> Response {
        var html = """
            <h1 id="signed-out">\(HTML.escape(Words.doneTitle))</h1>
            <p class="lead">\(HTML.escape(Words.done))</p>

            """
        if let appName { html += "<p>\(HTML.escape(Words.returnTo(appName)))</p>\n" }
        html += "<a class=\"button secondary\" href=\"/account\">\(HTML.escape(Words.signInAgain))</a>\n"
        return PageLayout.page(title: Words.doneTitle, content: html)
    }
}
