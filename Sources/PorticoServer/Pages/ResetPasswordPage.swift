import PorticoHTTP

/// The pages behind a reset link (`GET /password/reset?token=…`): the form for the new
/// password, the page after it was changed, and the page for a link that no longer works.
struct ResetPasswordPage {
    /// The plain reset token from the link, carried in a hidden field.
    var token: String
    /// The sealed pending request, if the link carried one that is still valid.
    var sealedRequest: String?
    /// The CSRF token, bound to the reset token.
    var csrfToken: String
    /// The account's e-mail address (shown, and offered to password managers as the username).
    var email: String
    /// The page's language.
    var language: PageLanguage
    /// Problems by field name (`password`, `password_confirmation`).
    var errors: [String: Localized] = [:]

    /// The form as a response.
    func response() -> Response {
        let text = PasswordResetText.self
        let lang = language
        var html = "<h1>\(text.resetTitle[lang])</h1>\n"
        html += "<p class=\"lead\">\(text.resetLead(HTML.escape(email))[lang])</p>\n"
        if !errors.isEmpty {
            html += """
                <div class="alert" role="alert" id="reset-error"><strong>\(text.problem[lang])</strong>\
                \(text.fixBelow[lang])</div>

                """
        }
        // The link may have named the language of the mail (`ui_locales`); the form keeps it.
        let action = PasswordResetEndpoint.path + (lang == .english ? "" : "?ui_locales=" + lang.rawValue)
        html += "<form method=\"post\" action=\"\(action)\" novalidate>\n"
        html += HTML.hiddenField(name: CSRFProtection.fieldName, value: csrfToken) + "\n"
        html += HTML.hiddenField(name: "token", value: token) + "\n"
        if let sealedRequest {
            html += HTML.hiddenField(name: AuthorizationFlow.requestField, value: sealedRequest) + "\n"
        }
        // Lets password managers file the new password under the right account.
        html += "<input type=\"email\" name=\"username\" value=\"\(HTML.escape(email))\" autocomplete=\"username\" "
        html += "hidden readonly tabindex=\"-1\" aria-hidden=\"true\">\n"
        let lengths = "minlength=\"\(PasswordPolicy.minimumLength)\" maxlength=\"\(PasswordPolicy.maximumLength)\""
        html +=
            FormField(
                name: "password", label: text.newPassword[lang], type: "password", autocomplete: "new-password",
                hint: PasswordPolicy.hint[lang], error: errors["password"]?[lang], attributes: lengths
            ).html
        html +=
            FormField(
                name: "password_confirmation", label: text.confirmation[lang], type: "password",
                autocomplete: "new-password", error: errors["password_confirmation"]?[lang], attributes: lengths
            ).html
        html += """
            <label class="check needs-js" for="show-password"><input type="checkbox" id="show-password"> \
            \(text.showPasswords[lang])</label>
            <button type="submit" class="button primary">\(text.save[lang])</button>
            </form>

            """
        return PageLayout.page(title: text.resetTitle[lang], content: html, language: lang)
    }

    /// The page after the password was changed.
    static func done(sealedRequest: String?, language: PageLanguage) -> Response {
        let text = PasswordResetText.self
        let html = """
            <h1>\(text.doneTitle[language])</h1>
            <div class="notice" role="status" id="password-changed"><p>\(text.doneText[language])</p></div>
            <a class="button primary" href="\(HTML.escape(ForgotPasswordPage.loginLink(sealedRequest)))">\
            \(text.signInAgain[language])</a>

            """
        return PageLayout.page(title: text.doneTitle[language], content: html, language: language)
    }

    /// The page for a link that was used, has expired, or never existed (the same for all).
    static func dead(minutes: Int, language: PageLanguage) -> Response {
        let text = PasswordResetText.self
        let html = """
            <h1>\(text.deadTitle[language])</h1>
            <div class="alert" role="alert" id="reset-link-dead"><p>\(text.deadText(minutes: minutes)[language])</p></div>
            <a class="button primary" href="\(PasswordForgotEndpoint.path)">\(text.newLink[language])</a>

            """
        return PageLayout.page(title: text.deadTitle[language], content: html, status: .badRequest, language: language)
    }
}
