import PorticoHTTP
import PorticoStore

/// The two pages of RP-initiated logout: "Sign out of Portico?" (asked when the app's request
/// does not prove it speaks for the person signed in here) and "You are signed out".
enum LogoutPage {
    /// The confirmation, posting `decision=logout` or `decision=stay` back to the endpoint with
    /// the CSRF token and the request's checked parameters.
    static func confirm(_ request: LogoutRequest, user: UserRecord, csrfToken: String, language: PageLanguage)
        -> Response
    {
        let text = LogoutText.self
        let lang = language
        var fields = HTML.hiddenField(name: CSRFProtection.fieldName, value: csrfToken)
        for (name, value) in request.formFields { fields += "\n" + HTML.hiddenField(name: name, value: value) }
        let html = """
            <h1 id="logout-title">\(text.confirmTitle[lang])</h1>
            <p class="lead">\(text.asked(request.client.map { HTML.escape($0.name) })[lang])</p>
            <p>\(text.signedInAs(name: HTML.escape(user.name), email: HTML.escape(user.email))[lang])</p>
            <p class="small">\(text.effect[lang])</p>
            <form method="post" action="\(LogoutEndpoint.path)">
            \(fields)
            <div class="actions">
            <button type="submit" class="button primary" name="decision" value="logout">\(text.signOut[lang])</button>
            <button type="submit" class="button secondary" name="decision" value="stay">\(text.stay[lang])</button>
            </div>
            </form>

            """
        return PageLayout.page(title: text.confirmTitle[lang], content: html, language: lang)
    }

    /// The page after signing out when the app named no return address.
    static func signedOut(appName: String?, language: PageLanguage) -> Response {
        let text = LogoutText.self
        let lang = language
        var html = """
            <h1 id="signed-out">\(text.doneTitle[lang])</h1>
            <p class="lead">\(text.done[lang])</p>

            """
        if let appName { html += "<p>\(text.returnTo(HTML.escape(appName))[lang])</p>\n" }
        html += "<a class=\"button secondary\" href=\"/account\">\(text.signInAgain[lang])</a>\n"
        return PageLayout.page(title: text.doneTitle[lang], content: html, language: lang)
    }
}
