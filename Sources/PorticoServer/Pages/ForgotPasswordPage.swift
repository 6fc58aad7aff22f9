import PorticoHTTP

/// The "forgot your password?" pages: the form that asks for the e-mail address
/// (`GET /password/forgot`), and the answer that follows it, which is the same whether or not
/// an account has that address.
struct ForgotPasswordPage {
    /// The sealed pending request, carried so the person can go back to it.
    var sealedRequest: String?
    /// The CSRF token for the form.
    var csrfToken: String
    /// The page's language.
    var language: PageLanguage
    /// The address typed (kept after a problem).
    var email = ""
    /// A problem with the address.
    var emailError: Localized?
    /// A message for the whole form (too many requests).
    var alert: Localized?
    /// The HTTP status.
    var status: HTTPStatus = .ok

    /// The form as a response.
    func response() -> Response {
        let text = PasswordResetText.self
        let lang = language
        var html = "<h1>\(text.forgotTitle[lang])</h1>\n<p class=\"lead\">\(text.forgotLead[lang])</p>\n"
        if let alert {
            html += """
                <div class="alert" role="alert" id="forgot-error"><strong>\(text.problem[lang])</strong>\
                \(alert[lang])</div>

                """
        }
        html += "<form method=\"post\" action=\"\(PasswordForgotEndpoint.path)\" novalidate>\n"
        html += HTML.hiddenField(name: CSRFProtection.fieldName, value: csrfToken) + "\n"
        if let sealedRequest {
            html += HTML.hiddenField(name: AuthorizationFlow.requestField, value: sealedRequest) + "\n"
        }
        html +=
            FormField(
                name: "email", label: text.email[lang], type: "email", value: email, autocomplete: "username",
                error: emailError?[lang], attributes: "autocapitalize=\"none\" spellcheck=\"false\" maxlength=\"254\""
            ).html
        html += """
            <button type="submit" class="button primary">\(text.send[lang])</button>
            </form>
            <p class="links"><a href="\(HTML.escape(Self.loginLink(sealedRequest)))">\(text.backToSignIn[lang])</a></p>

            """
        return PageLayout.page(title: text.forgotTitle[lang], content: html, status: status, language: lang)
    }

    /// The answer after the form was sent, for any address.
    static func sent(email: String, sealedRequest: String?, minutes: Int, language: PageLanguage) -> Response {
        let text = PasswordResetText.self
        var again = PasswordForgotEndpoint.path
        if let sealedRequest {
            again = AuthorizationResponse.location(again, [(AuthorizationFlow.requestField, sealedRequest)])
        }
        let html = """
            <h1>\(text.sentTitle[language])</h1>
            <div class="notice" role="status" id="reset-sent"><p>\(text.sent(HTML.escape(email))[language])</p></div>
            <p>\(text.sentDetails(minutes: minutes)[language])</p>
            <a class="button secondary" href="\(HTML.escape(again))">\(text.askAgain[language])</a>
            <p class="links"><a href="\(HTML.escape(loginLink(sealedRequest)))">\(text.backToSignIn[language])</a></p>

            """
        return PageLayout.page(title: text.sentTitle[language], content: html, language: language)
    }

    /// The sign-in page, for the pending request if there is one.
    static func loginLink(_ sealedRequest: String?) -> String {
        guard let sealedRequest else { return AuthorizationFlow.loginPath }
        return AuthorizationResponse.location(
            AuthorizationFlow.loginPath, [(AuthorizationFlow.requestField, sealedRequest)])
    }
}
