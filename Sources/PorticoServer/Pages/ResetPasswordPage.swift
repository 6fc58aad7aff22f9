import PorticoHTTP

/// The pages behind a reset link (`GET /password/reset?token=…`): the form for the new
/// password, the page after it was changed, and the page for a link that no longer works.
struct ResetPasswordPage {
    /// The English words of the pages, in one place.
    enum Words {
        static let title = "Choose a new password"
        static func lead(email: String) -> String { "for your account \(email)" }
        static let password = "New password"
        static let confirmation = "New password again"
        static let showPassword = "Show passwords"
        static let submit = "Save the new password"
        static let problem = "There was a problem"
        static let fixBelow = "Please correct the fields marked below."
        static let mismatch = "The two passwords are not the same."
        static let confirm = "Type the new password again."
        static let doneTitle = "Your password has been changed"
        static let doneText =
            "For your safety we have signed you out everywhere, and apps you signed in to will ask you to sign in again."
        static let signIn = "Sign in with your new password"
        static let deadTitle = "This link no longer works"
        static func deadText(minutes: Int) -> String {
            "A reset link works once, within \(minutes) minutes of asking for it. Ask for a new one below."
        }
        static let newLink = "Get a new link"
        static var passwordHint: String {
            "At least \(PasswordPolicy.minimumLength) characters. A few unrelated words make a strong password."
        }
    }

    /// The plain reset token from the link, carried in a hidden field.
    var token: String
    /// The sealed pending request, if the link carried one that is still valid.
    var sealedRequest: String?
    /// The CSRF token, bound to the reset token.
    var csrfToken: String
    /// The account's e-mail address (shown, and offered to password managers as the username).
    var email: String
    /// Problems by field name (`password`, `password_confirmation`).
    var errors: [String: String] = [:]

    /// The form as a response.
    func response() -> Response {
        var html = "<h1>\(HTML.escape(Words.title))</h1>\n<p class=\"lead\">\(HTML.escape(Words.lead(email: email)))</p>\n"
        if !errors.isEmpty {
            html += """
                <div class="alert" role="alert" id="reset-error"><strong>\(HTML.escape(Words.problem))</strong>\
                \(HTML.escape(Words.fixBelow))</div>

                """
        }
        html += "<form method=\"post\" action=\"\(PasswordResetEndpoint.path)\" novalidate>\n"
        html += HTML.hiddenField(name: CSRFProtection.fieldName, value: csrfToken) + "\n"
        html += HTML.hiddenField(name: "token", value: token) + "\n"
        if let sealedRequest { html += HTML.hiddenField(name: AuthorizationFlow.requestField, value: sealedRequest) + "\n" }
        // Lets password managers file the new password under the right account.
        html += "<input type=\"email\" name=\"username\" value=\"\(HTML.escape(email))\" autocomplete=\"username\" "
        html += "hidden readonly tabindex=\"-1\" aria-hidden=\"true\">\n"
        let lengths = "minlength=\"\(PasswordPolicy.minimumLength)\" maxlength=\"\(PasswordPolicy.maximumLength)\""
        html += FormField(
            name: "password", label: Words.password, type: "password", autocomplete: "new-password",
            hint: Words.passwordHint, error: errors["password"], attributes: lengths
        ).html
        html += FormField(
            name: "password_confirmation", label: Words.confirmation, type: "password", autocomplete: "new-password",
            error: errors["password_confirmation"], attributes: lengths
        ).html
        html += """
            <label class="check needs-js" for="show-password"><input type="checkbox" id="show-password"> \
            \(HTML.escape(Words.showPassword))</label>
            <button type="submit" class="button primary">\(HTML.escape(Words.submit))</button>
            </form>

            """
        return PageLayout.page(title: Words.title, content: html)
    }

    /// The page after the password was changed.
    static func done(sealedRequest: String?) -> Response {
        let html = """
            <h1>\(HTML.escape(Words.doneTitle))</h1>
            <div class="notice" role="status" id="password-changed"><p>\(HTML.escape(Words.doneText))</p></div>
            <a class="button primary" href="\(HTML.escape(ForgotPasswordPage.loginLink(sealedRequest)))">\
            \(HTML.escape(Words.signIn))</a>

            """
        return PageLayout.page(title: Words.doneTitle, content: html)
    }

    /// The page for a link that was used, has expired, or never existed (the same for all).
    static func dead(minutes: Int) -> Response {
        let html = """
            <h1>\(HTML.escape(Words.deadTitle))</h1>
            <div class="alert" role="alert" id="reset-link-dead"><p>\(HTML.escape(Words.deadText(minutes: minutes)))</p></div>
            <a class="button primary" href="\(PasswordForgotEndpoint.path)">\(HTML.escape(Words.newLink))</a>

            """
        return PageLayout.page(title: Words.deadTitle, content: html, status: .badRequest)
    }
}
