import PorticoHTTP
import PorticoStore

/// The consent page (`GET /consent`), laid out like Login with Amazon's: the signed-in
/// person's name in the top corner with a way to switch account, the app's name and logo, one
/// line per permission in plain words, Allow and Cancel, and links to Your Account and the
/// app's privacy policy.
///
/// Buttons are `name="decision"` with `value="allow"` / `value="deny"` (the DESIGN's contract);
/// "Switch account" posts `decision=switch` from its own small form.
struct ConsentPage {
    /// The app asking.
    var client: Client
    /// The signed-in person.
    var user: UserRecord
    /// The plain-words lines for the permissions being asked for now.
    var requested: [String]
    /// Lines for permissions this app already has, shown as such.
    var alreadyGranted: [String]
    /// The sealed pending request.
    var sealedRequest: String
    /// The CSRF token, bound to the request and the session.
    var csrfToken: String
    /// The language of the page.
    var language: PageLanguage

    /// The page as a response.
    func response() -> Response {
        let app = HTML.escape(client.name)
        let text = ConsentText.self
        let lang = language
        var html = AppHeader.html(for: client, line: text.wantsToUse[lang]) + "\n"
        html += "<h1>\(text.allowTo(app)[lang])</h1>\n<ul class=\"permissions\">\n"
        for line in requested { html += "<li>\(HTML.escape(line))</li>\n" }
        html += "</ul>\n"
        if !alreadyGranted.isEmpty {
            html += "<div class=\"granted\">\(text.alreadyAllowed(app)[lang])<ul>\n"
            for line in alreadyGranted { html += "<li>\(HTML.escape(line))</li>\n" }
            html += "</ul></div>\n"
        }
        if !client.isVerified {
            html += "<div class=\"caution\" id=\"unverified-app\" role=\"note\"><p>\(text.unverified[lang])</p></div>\n"
        }
        html += """
            <form method="post" action="/consent">
            \(hiddenFields)
            <div class="actions">
            <button type="submit" class="button primary" name="decision" value="allow">\(text.allow[lang])</button>
            <button type="submit" class="button secondary" name="decision" value="deny">\(text.cancel[lang])</button>
            </div>
            </form>
            <p class="small">\(privacyText) \(text.removeAnyTime[lang])</p>

            """
        return PageLayout.page(
            title: text.allowTo(client.name)[lang], content: html, account: accountBar, language: lang)
    }

    /// The top corner: who is signed in, and the switch-account button.
    private var accountBar: String {
        """
        <div class="account"><span>\(ConsentText.signedInAs(HTML.escape(user.name))[language])</span>
        <form method="post" action="/consent">\(hiddenFields)<button type="submit" class="linkish" name="decision" \
        value="switch">\(ConsentText.switchAccount[language])</button></form></div>
        """
    }

    private var hiddenFields: String {
        HTML.hiddenField(name: CSRFProtection.fieldName, value: csrfToken)
            + HTML.hiddenField(name: AuthorizationFlow.requestField, value: sealedRequest)
    }

    private var privacyText: String {
        let app = HTML.escape(client.name)
        if let url = client.privacyURL, HTML.isSafeLink(url) {
            return ConsentText.privacyPolicy(app: app, url: HTML.escape(url))[language]
        }
        return ConsentText.noPrivacyPolicy(app)[language]
    }
}
