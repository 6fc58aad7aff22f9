import PorticoHTTP
import PorticoStore

/// The pages of "Close your account" (``AccountCloseEndpoint``): first the password again (or
/// a fresh passkey sign-in), then a confirmation, then a signed-out goodbye.
///
/// The password field is labelled and its error tied to it; a refusal is announced with
/// `role="alert"`, so the steps work from the keyboard and a screen reader.
struct AccountClosePage {
    /// Which step the page shows.
    enum Step {
        /// Asks for the password again (or offers signing in again with a passkey).
        case reauthenticate
        /// The last question; its form is good until `until` (seconds since 1970).
        case confirm(until: Int64)
    }

    /// The signed-in person.
    var user: UserRecord
    /// The step shown.
    var step: Step
    /// The form's CSRF token (for the confirmation: the one bound to `until`).
    var csrfToken: String
    /// The page's language.
    var language: PageLanguage
    /// Whether the account has a password to ask for.
    var hasPassword: Bool
    /// Whether the account has passkeys (then signing in again with one is offered).
    var hasPasskeys: Bool
    /// What is wrong with the typed password.
    var passwordError: Localized? = nil
    /// A refusal above the form (too many wrong passwords, the confirmation ran out of time).
    var alert: Localized? = nil
    /// The status of the answer.
    var status: HTTPStatus = .ok

    /// The step as a response.
    func response() -> Response {
        let text = AccountCloseText.self
        let lang = language
        var html = "<h1 id=\"account-close-title\">\(text.title[lang])</h1>\n"
        if alert != nil || passwordError != nil {
            html += "<div class=\"alert\" role=\"alert\" id=\"account-close-error\"><strong>"
            html += "\(text.problem[lang])</strong>"
            if let alert { html += "<p>\(HTML.escape(alert[lang]))</p>" }
            html += "</div>\n"
        }
        html += "<p class=\"lead\">\(text.effects[lang])</p>\n<ul id=\"account-close-effects\">\n"
        for line in text.effectList { html += "<li>\(line[lang])</li>\n" }
        html += "</ul>\n"
        let action = AccountCloseEndpoint.path + (lang == .english ? "" : "?ui_locales=" + lang.rawValue)
        switch step {
        case .reauthenticate:
            if hasPassword {
                html += "<p>\(text.passwordLead[lang])</p>\n"
                html += "<form method=\"post\" action=\"\(action)\" novalidate>\n"
                html += HTML.hiddenField(name: CSRFProtection.fieldName, value: csrfToken) + "\n"
                html += "<input type=\"email\" name=\"username\" value=\"\(HTML.escape(user.email))\" "
                html += "autocomplete=\"username\" hidden readonly tabindex=\"-1\" aria-hidden=\"true\">\n"
                html +=
                    FormField(
                        name: "current_password", label: text.password[lang], type: "password",
                        autocomplete: "current-password", error: passwordError?[lang],
                        attributes: "maxlength=\"\(PasswordPolicy.maximumLength)\""
                    ).html
                html += "<button type=\"submit\" class=\"button primary\" id=\"account-close-continue\">"
                html += "\(text.continueButton[lang])</button>\n</form>\n"
            } else {
                html += "<p>\(text.passkeyLead[lang])</p>\n"
            }
            if hasPasskeys || !hasPassword {
                let again = ReturnPath.signInLocation(returningTo: AccountCloseEndpoint.path)
                html += "<p><a href=\"\(HTML.escape(again))\" id=\"account-close-passkey\">"
                html += "\(text.usePasskey[lang])</a></p>\n"
            }
        case .confirm(let until):
            html += "<p><strong>\(text.confirmLead[lang])</strong></p>\n"
            html += "<form method=\"post\" action=\"\(action)\">\n"
            html += HTML.hiddenField(name: CSRFProtection.fieldName, value: csrfToken) + "\n"
            html += HTML.hiddenField(name: AccountCloseEndpoint.untilField, value: String(until)) + "\n"
            html += "<button type=\"submit\" class=\"button danger\" name=\"confirm_close\" value=\"1\" "
            html += "id=\"account-close-confirm\">\(text.confirm[lang])</button>\n</form>\n"
        }
        html += "<p><a href=\"\(AccountEndpoint.path)\" id=\"account-close-keep\">\(text.keep[lang])</a></p>\n"
        return PageLayout.page(title: text.title[lang], content: html, status: status, language: lang)
    }

    /// The goodbye page, shown signed out: it names nobody.
    static func closed(language: PageLanguage) -> Response {
        let text = AccountCloseText.self
        let html = """
            <h1 id="account-closed">\(text.closedTitle[language])</h1>
            <p class="lead" role="status">\(text.closedLead[language])</p>
            <p>\(text.closedHint[language])</p>
            <a class="button secondary" href="/">\(text.home[language])</a>

            """
        return PageLayout.page(title: text.closedTitle[language], content: html, language: language)
    }
}
