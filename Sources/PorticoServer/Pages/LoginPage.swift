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
    /// Whether "Keep me signed in" starts ticked (kept after a failed attempt).
    var remembersMe = false
    /// A message about the last attempt.
    var errorMessage: String?
    /// Where to go after signing in without an app's request (a validated local path).
    var returnPath: String?

    /// The message for a wrong e-mail address or password: the same for both, so the page does
    /// not tell who has an account.
    static let wrongCredentials = "Your email or password is incorrect"

    /// The page as a response (200 even after a failed attempt, as the form is shown again).
    func response() -> Response {
        let platform = PageLayout.platformName
        var html = "<h1>Sign in</h1>\n"
        if let appName {
            html += "<p class=\"lead\">to continue to <span class=\"app-name\">\(HTML.escape(appName))</span></p>\n"
        } else {
            html += "<p class=\"lead\">with your \(platform) account</p>\n"
        }
        if let errorMessage {
            html += """
                <div class="alert" role="alert" id="login-error"><strong>There was a problem</strong>\
                \(HTML.escape(errorMessage))</div>

                """
        }
        let described = errorMessage == nil ? "" : #" aria-describedby="login-error""#
        html += """
            <form method="post" action="/login">
            \(hiddenFields)
            <label for="email">Email</label>
            <input type="email" id="email" name="email" value="\(HTML.escape(email))" autocomplete="username" \
            autocapitalize="none" spellcheck="false" required\(described)>
            <label for="password">Password</label>
            <input type="password" id="password" name="password" autocomplete="current-password" required\(described)>
            <label class="check needs-js" for="show-password"><input type="checkbox" id="show-password"> Show password</label>
            <button type="submit" class="button primary">Sign in</button>
            <label class="check" for="remember_me"><input type="checkbox" id="remember_me" name="remember_me" \
            value="1"\(remembersMe ? " checked" : "")> Keep me signed in</label>
            <p class="small">Only on a device you trust. You will stay signed in for 30 days.</p>
            </form>
            <p class="links"><a href="\(HTML.escape(link("/password/forgot")))">Forgot your password?</a></p>
            <div class="divider">New to \(platform)?</div>
            <a class="button secondary" href="\(HTML.escape(link("/signup")))">Create a new account</a>
            <details>
            <summary>What is this?</summary>
            <p>\(HTML.escape(appName ?? "This app")) uses Login with \(platform) so you can sign in with the account \
            you already have, without a new password. You decide what it may see; \(platform) never shares your \
            password. <a href="/help">Learn more</a></p>
            </details>
            <p class="small">By signing in you agree to the <a href="/terms">Conditions of Use</a> and the \
            <a href="/privacy">Privacy Notice</a>.</p>

            """
        return PageLayout.page(title: "Sign in", content: html)
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
