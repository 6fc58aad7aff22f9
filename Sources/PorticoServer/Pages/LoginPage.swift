import PorticoHTTP

/// The sign-in page (`GET /login`), laid out like Login with Amazon's: the app's name, e-mail
/// and password fields, "Show password", "Keep me signed in", one Sign in button, links to
/// reset a password and create an account, and a short "What is this?".
///
/// Field names are part of the DESIGN's contract (`email`, `password`, `remember_me`); the
/// browser tests and outside tools drive the page by them.
struct LoginPage {
    /// The requesting app's name, when the page is part of an authorization.
    var appName: String?
    /// The sealed pending request, carried in a hidden field.
    var sealedRequest: String?
    /// The CSRF token for the form.
    var csrfToken: String
    /// The e-mail address to show in the field (typed before, or the `login_hint`).
    var email: String = ""
    /// The language of the page.
    var language: PageLanguage = .english
    /// Whether "Keep me signed in" starts ticked (kept after a failed attempt).
    var remembersMe = false
    /// A message about the last attempt.
    var errorMessage: String?
    /// The HTTP status: 200, or 429 when attempts are refused for a while.
    var status: HTTPStatus = .ok
    /// Where to go after signing in without an app's request (a validated local path).
    var returnPath: String?

    /// The page as a response (200 even after a failed attempt, as the form is shown again).
    func response() -> Response {
        let text = LoginText.self
        let lang = language
        var html = "<h1>\(text.title[lang])</h1>\n"
        if let appName {
            html += "<p class=\"lead\">\(text.toContinueTo(appTag(appName))[lang])</p>\n"
        } else {
            html += "<p class=\"lead\">\(text.withYourAccount[lang])</p>\n"
        }
        if let errorMessage {
            html += """
                <div class="alert" role="alert" id="login-error"><strong>\(LayoutText.problem[lang])</strong>\
                \(HTML.escape(errorMessage))</div>

                """
        }
        let described = errorMessage == nil ? "" : #" aria-describedby="login-error""#
        let app = HTML.escape(appName ?? text.thisApp[lang])
        html += """
            <form method="post" action="/login">
            \(hiddenFields)
            <label for="email">\(text.email[lang])</label>
            <input type="email" id="email" name="email" value="\(HTML.escape(email))" autocomplete="username webauthn" \
            autocapitalize="none" spellcheck="false" required\(described)>
            <label for="password">\(text.password[lang])</label>
            <input type="password" id="password" name="password" autocomplete="current-password" required\(described)>
            <label class="check needs-js" for="show-password"><input type="checkbox" id="show-password"> \
            \(text.showPassword[lang])</label>
            <button type="submit" class="button primary">\(text.signIn[lang])</button>
            <label class="check" for="remember_me"><input type="checkbox" id="remember_me" name="remember_me" \
            value="1"\(remembersMe ? " checked" : "")> \(text.keepMeSignedIn[lang])</label>
            <p class="small">\(text.keepMeSignedInHint[lang])</p>
            </form>
            <form method="post" action="\(PasskeyEndpoint.signInPath)" id="passkey-form" class="needs-passkeys" \
            data-options="\(PasskeyEndpoint.signInOptionsPath)" hidden>
            \(hiddenFields)
            <input type="hidden" name="\(PasskeyEndpoint.credentialField)" id="passkey-credential" value="">
            <div class="divider">\(PasskeyText.or[lang])</div>
            <button type="button" class="button secondary" id="passkey-sign-in">\(PasskeyText.signIn[lang])</button>
            </form>
            \(PasskeyScript.tag)
            <p class="links"><a href="\(HTML.escape(link("/password/forgot")))">\(text.forgotPassword[lang])</a></p>
            <div class="divider">\(text.newHere[lang])</div>
            <a class="button secondary" href="\(HTML.escape(link("/signup")))">\(text.createAccount[lang])</a>
            <details>
            <summary>\(text.whatIsThis[lang])</summary>
            <p>\(text.whatIsThisAnswer(app)[lang]) <a href="/help">\(text.learnMore[lang])</a></p>
            </details>
            <p class="small">\(text.agreement[lang])</p>

            """
        return PageLayout.page(title: text.title[lang], content: html, status: status, language: lang)
    }

    /// The app's name, escaped and marked up for the lead line.
    private func appTag(_ name: String) -> String {
        "<span class=\"app-name\">\(HTML.escape(name))</span>"
    }

    private var hiddenFields: String {
        var fields = HTML.hiddenField(name: CSRFProtection.fieldName, value: csrfToken)
        if let sealedRequest {
            fields += "\n" + HTML.hiddenField(name: AuthorizationFlow.requestField, value: sealedRequest)
        } else if let returnPath {
            fields += "\n" + HTML.hiddenField(name: ReturnPath.field, value: returnPath)
        }
        return fields
    }

    /// `path`, carrying the pending request so the page behind it can come back to it.
    private func link(_ path: String) -> String {
        guard let sealedRequest else { return path }
        return AuthorizationResponse.location(path, [(AuthorizationFlow.requestField, sealedRequest)])
    }
}
