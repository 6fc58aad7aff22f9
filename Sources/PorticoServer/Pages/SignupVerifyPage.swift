import PorticoHTTP

/// The pages behind a sign-up's mailed link (`GET /signup/verify?token=…`): "create this
/// account?" with one button, and the pages for a link that no longer works and for an address
/// that got an account in the meantime.
struct SignupVerifyPage {
    /// The plain token from the link, carried in a hidden field.
    var token: String
    /// The sealed pending request, if the link carried one that is still valid.
    var sealedRequest: String?
    /// The CSRF token, bound to the link's token.
    var csrfToken: String
    /// The name typed at sign-up.
    var name: String
    /// The address being confirmed.
    var email: String
    /// The page's language.
    var language: PageLanguage
    /// Whether the account is to sign in with a passkey (made here) instead of a password.
    var withPasskey = false
    /// Shown when a passkey posted here was refused.
    var passkeyRefused = false

    /// The confirmation form as a response (400 after a refused passkey).
    func response() -> Response {
        let text = SignupVerifyText.self
        let lang = language
        // The link may have named the language of the mail (`ui_locales`); the form keeps it.
        let action = SignupVerifyEndpoint.path + (lang == .english ? "" : "?ui_locales=" + lang.rawValue)
        var html = "<h1>\(text.confirmTitle[lang])</h1>\n"
        html += "<p class=\"lead\" id=\"signup-confirm\">"
        html += "\(text.confirmLead(name: HTML.escape(name), email: HTML.escape(email))[lang])</p>\n"
        if withPasskey {
            html += passkeyForm(action: action)
            return PageLayout.page(
                title: text.confirmTitle[lang], content: html, status: passkeyRefused ? .badRequest : .ok,
                language: lang)
        }
        html += "<form method=\"post\" action=\"\(action)\">\n"
        html += hiddenFields
        html += """
            <button type="submit" class="button primary">\(text.confirm[lang])</button>
            </form>

            """
        return PageLayout.page(title: text.confirmTitle[lang], content: html, language: lang)
    }

    private var hiddenFields: String {
        var html = HTML.hiddenField(name: CSRFProtection.fieldName, value: csrfToken) + "\n"
        html += HTML.hiddenField(name: "token", value: token) + "\n"
        if let sealedRequest {
            html += HTML.hiddenField(name: AuthorizationFlow.requestField, value: sealedRequest) + "\n"
        }
        return html
    }

    /// The passkey ceremony's form: shown by the script only where the browser has passkeys;
    /// elsewhere a way out (another browser, or a sign-up with a password).
    private func passkeyForm(action: String) -> String {
        let lang = language
        var html = "<p>\(PasskeyText.signUpLead[lang])</p>\n"
        if passkeyRefused {
            html += "<div class=\"alert\" role=\"alert\" id=\"signup-passkey-refused\">"
            html += "<p>\(PasskeyText.signUpRefused[lang])</p></div>\n"
        }
        html += """
            <form method="post" action="\(action)" id="signup-passkey-form" class="needs-passkeys" \
            data-options="\(PasskeySignup.optionsPath)" hidden>

            """
        html += hiddenFields
        html += HTML.hiddenField(name: PasskeySignup.handleField, value: "") + "\n"
        html += HTML.hiddenField(name: PasskeyEndpoint.credentialField, value: "") + "\n"
        html += """
            <button type="button" class="button primary" id="signup-passkey-create">\(PasskeyText.create[lang])</button>
            <div class="alert" role="alert" id="passkey-error" hidden>\(PasskeyText.signUpRefused[lang])</div>
            </form>
            <div class="notice without-passkeys" id="signup-passkey-unsupported"><p>\(PasskeyText.unsupported[lang])</p>
            <a class="button secondary" href="\(SignupEndpoint.path)">\(SignupVerifyText.startAgain[lang])</a></div>
            \(PasskeyScript.tag)
            """
        return html
    }

    /// The page for a link that was used, replaced, has expired, or never existed (one for all).
    static func dead(language: PageLanguage) -> Response {
        let text = SignupVerifyText.self
        let html = """
            <h1>\(text.deadTitle[language])</h1>
            <div class="alert" role="alert" id="signup-link-dead">\
            <p>\(text.deadText(hours: SignupVerifyEndpoint.linkLifetimeHours)[language])</p></div>
            <a class="button primary" href="\(SignupEndpoint.path)">\(text.startAgain[language])</a>
            <p class="links"><a href="\(AuthorizationFlow.loginPath)">\(text.backToSignIn[language])</a></p>

            """
        return PageLayout.page(title: text.deadTitle[language], content: html, status: .badRequest, language: language)
    }

    /// The page when the address got an account after the sign-up was made (`email` as stored).
    static func taken(email: String, sealedRequest: String?, language: PageLanguage) -> Response {
        let text = SignupVerifyText.self
        var forgot = PasswordForgotEndpoint.path
        if let sealedRequest {
            forgot = AuthorizationResponse.location(forgot, [(AuthorizationFlow.requestField, sealedRequest)])
        }
        let html = """
            <h1>\(text.takenTitle[language])</h1>
            <div class="alert" role="alert" id="signup-address-taken">\
            <p>\(text.takenText(HTML.escape(email))[language])</p></div>
            <a class="button primary" href="\(HTML.escape(ForgotPasswordPage.loginLink(sealedRequest)))">\
            \(text.signIn[language])</a>
            <a class="button secondary" href="\(HTML.escape(forgot))">\(text.resetPassword[language])</a>

            """
        return PageLayout.page(
            title: text.takenTitle[language], content: html, status: HTTPStatus(rawValue: 409), language: language)
    }
}
