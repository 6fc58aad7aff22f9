import PorticoHTTP

/// The "forgot your password?" pages: the form that asks for the e-mail address
/// (`GET /password/forgot`), and the answer that follows it, which is the same whether or not
/// an account has that address.
struct ForgotPasswordPage {
    /// The English words of the pages, in one place.
    enum Words {
        static let title = "Reset your password"
        static let lead = "Enter the email address of your account. We'll send you a link to choose a new password."
        static let email = "Email"
        static let submit = "Send the link"
        static let back = "Back to sign in"
        static let problem = "There was a problem"
        static let sentTitle = "Check your email"
        static func sent(email: String) -> String {
            "If an account exists for \(email), we have sent it an email with a link to choose a new password."
        }
        static func sentDetails(minutes: Int) -> String {
            "The link works once, within \(minutes) minutes. Nothing arrived? Check your spam folder, or ask again."
        }
        static let askAgain = "Send another link"
        static let subject = "Reset your \(PageLayout.platformName) password"
        static func mail(name: String, link: String, minutes: Int) -> String {
            """
            Hello \(name),

            Someone, hopefully you, asked to reset the password of your \(PageLayout.platformName) account.
            To choose a new password, open this link within \(minutes) minutes:

            \(link)

            The link works once. If you did not ask for this, you can ignore this message:
            your password stays as it is.

            \(PageLayout.platformName)
            """
        }
    }

    /// The sealed pending request, carried so the person can go back to it.
    var sealedRequest: String?
    /// The CSRF token for the form.
    var csrfToken: String
    /// The address typed (kept after a problem).
    var email = ""
    /// A problem with the address.
    var emailError: String?
    /// A message for the whole form (too many requests).
    var alert: String?
    /// The HTTP status.
    var status: HTTPStatus = .ok

    /// The form as a response.
    func response() -> Response {
        var html = "<h1>\(HTML.escape(Words.title))</h1>\n<p class=\"lead\">\(HTML.escape(Words.lead))</p>\n"
        if let alert {
            html += """
                <div class="alert" role="alert" id="forgot-error"><strong>\(HTML.escape(Words.problem))</strong>\
                \(HTML.escape(alert))</div>

                """
        }
        html += "<form method=\"post\" action=\"\(PasswordForgotEndpoint.path)\" novalidate>\n"
        html += HTML.hiddenField(name: CSRFProtection.fieldName, value: csrfToken) + "\n"
        if let sealedRequest { html += HTML.hiddenField(name: AuthorizationFlow.requestField, value: sealedRequest) + "\n" }
        html += FormField(
            name: "email", label: Words.email, type: "email", value: email, autocomplete: "username",
            error: emailError, attributes: "autocapitalize=\"none\" spellcheck=\"false\" maxlength=\"254\""
        ).html
        html += "<button type=\"submit\" class=\"button primary\">\(HTML.escape(Words.submit))</button>\n</form>\n"
        html += "<p class=\"links\"><a href=\"\(HTML.escape(Self.loginLink(sealedRequest)))\">\(HTML.escape(Words.back))</a></p>\n"
        return PageLayout.page(title: Words.title, content: html, status: status)
    }

    /// The answer after the form was sent, for any address.
    static func sent(email: String, sealedRequest: String?, minutes: Int) -> Response {
        var again = PasswordForgotEndpoint.path
        if let sealedRequest {
            again = AuthorizationResponse.location(again, [(AuthorizationFlow.requestField, sealedRequest)])
        }
        let html = """
            <h1>\(HTML.escape(Words.sentTitle))</h1>
            <div class="notice" role="status" id="reset-sent"><p>\(HTML.escape(Words.sent(email: email)))</p></div>
            <p>\(HTML.escape(Words.sentDetails(minutes: minutes)))</p>
            <a class="button secondary" href="\(HTML.escape(again))">\(HTML.escape(Words.askAgain))</a>
            <p class="links"><a href="\(HTML.escape(loginLink(sealedRequest)))">\(HTML.escape(Words.back))</a></p>

            """
        return PageLayout.page(title: Words.sentTitle, content: html)
    }

    /// The sign-in page, for the pending request if there is one.
    static func loginLink(_ sealedRequest: String?) -> String {
        guard let sealedRequest else { return AuthorizationFlow.loginPath }
        return AuthorizationResponse.location(AuthorizationFlow.loginPath, [(AuthorizationFlow.requestField, sealedRequest)])
    }
}
