import PorticoHTTP

/// The second step of signing in (`/login/otp`): the 6-digit code from the authenticator app
/// (`otp`), or, behind "Use a recovery code instead" (a `<details>`, opened by keyboard as by
/// mouse, no script needed), a recovery code (`recovery_code`). The half-done sign-in travels
/// in the hidden field `pending`; errors are announced (`role="alert"`) and tied to the field.
struct TwoStepSignInPage {
    /// The pending sign-in's token.
    var pendingToken: String
    /// The CSRF token, bound to the pending sign-in.
    var csrfToken: String
    /// The requesting app's name, when the sign-in is part of an authorization.
    var appName: String?
    /// The page's language.
    var language: PageLanguage
    /// What went wrong with the last code.
    var error: Localized? = nil
    /// Whether the last try was a recovery code (its part starts open, with the error).
    var recoveryChosen = false
    /// The status of the answer.
    var status: HTTPStatus = .ok

    /// The page as a response.
    func response() -> Response {
        let text = TwoStepText.self
        let lang = language
        var html = "<h1>\(text.title[lang])</h1>\n"
        if let appName {
            html +=
                "<p class=\"lead\">\(LoginText.toContinueTo("<span class=\"app-name\">\(HTML.escape(appName))</span>")[lang])</p>\n"
        }
        if let error {
            html += "<div class=\"alert\" role=\"alert\" id=\"two-step-error\">\(HTML.escape(error[lang]))</div>\n"
        }
        let action = TwoStepSignInEndpoint.path + (lang == .english ? "" : "?ui_locales=" + lang.rawValue)
        html += "<form method=\"post\" action=\"\(action)\" novalidate>\n"
        html += HTML.hiddenField(name: CSRFProtection.fieldName, value: csrfToken) + "\n"
        html += HTML.hiddenField(name: TwoStepSignInEndpoint.pendingField, value: pendingToken) + "\n"
        html += "<p>\(text.signInLead[lang])</p>\n"
        html += TwoStepPages.codeField(invalid: error != nil && !recoveryChosen, language: lang)
        html += "<button type=\"submit\" class=\"button primary\" id=\"verify\">\(text.verify[lang])</button>\n"
        html +=
            "<details id=\"use-recovery\"\(recoveryChosen ? " open" : "")><summary>\(text.useRecoveryCode[lang])</summary>\n"
        html +=
            FormField(
                name: "recovery_code", label: text.recoveryCodeLabel[lang], autocomplete: "off", isRequired: false,
                hint: text.recoveryCodeHint[lang],
                attributes: "autocapitalize=\"none\" spellcheck=\"false\" maxlength=\"32\""
                    + (error != nil && recoveryChosen ? " aria-invalid=\"true\"" : "")
            ).html
        html +=
            "<button type=\"submit\" class=\"button secondary\" id=\"verify-recovery\">\(text.verify[lang])</button>\n"
        html += "</details>\n</form>\n"
        return PageLayout.page(title: text.title[lang], content: html, status: status, language: lang)
    }

    /// The page when the half-done sign-in is gone (expired, used, or never was).
    static func expired(language: PageLanguage) -> Response {
        let html = """
            <h1>\(TwoStepText.title[language])</h1>
            <div class="alert" role="alert" id="two-step-error">\(TwoStepText.expired[language])</div>
            <p><a class="button primary" href="\(AuthorizationFlow.loginPath)">\(LoginText.title[language])</a></p>

            """
        return PageLayout.page(
            title: TwoStepText.title[language], content: html, status: .badRequest, language: language)
    }
}
