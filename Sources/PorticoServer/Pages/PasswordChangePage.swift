import PorticoHTTP
import PorticoStore

/// Your Account's change-password form (`GET /account/password`): the current password, the
/// new one twice, a "Show passwords" box, and what saving will do. Labels are tied to their
/// inputs and errors to their fields, so the form works from the keyboard and a screen reader.
struct PasswordChangePage {
    /// The signed-in person.
    var user: UserRecord
    /// The CSRF token, bound to this browser's session.
    var csrfToken: String
    /// The page's language.
    var language: PageLanguage
    /// Problems by field name (`current_password`, `password`, `password_confirmation`).
    var errors: [String: Localized] = [:]
    /// A refusal above the form (too many wrong current passwords).
    var alert: Localized? = nil
    /// The status of the answer.
    var status: HTTPStatus = .ok

    /// The form as a response.
    func response() -> Response {
        let text = PasswordChangeText.self
        let lang = language
        var html = "<h1>\(text.title[lang])</h1>\n"
        html += "<p class=\"lead\">\(text.lead(HTML.escape(user.email))[lang])</p>\n"
        if let alert {
            html += "<div class=\"alert\" role=\"alert\" id=\"change-error\"><p>\(HTML.escape(alert[lang]))</p></div>\n"
        } else if !errors.isEmpty {
            html += """
                <div class="alert" role="alert" id="change-error"><strong>\(PasswordResetText.problem[lang])</strong>\
                \(PasswordResetText.fixBelow[lang])</div>

                """
        }
        // A language chosen by `ui_locales` stays through the post and the way back.
        let action = PasswordChangeEndpoint.path + (lang == .english ? "" : "?ui_locales=" + lang.rawValue)
        html += "<form method=\"post\" action=\"\(action)\" novalidate>\n"
        html += HTML.hiddenField(name: CSRFProtection.fieldName, value: csrfToken) + "\n"
        html +=
            "<input type=\"email\" name=\"username\" value=\"\(HTML.escape(user.email))\" autocomplete=\"username\" "
        html += "hidden readonly tabindex=\"-1\" aria-hidden=\"true\">\n"
        html +=
            FormField(
                name: "current_password", label: text.currentPassword[lang], type: "password",
                autocomplete: "current-password", error: errors["current_password"]?[lang],
                attributes: "maxlength=\"\(PasswordPolicy.maximumLength)\""
            ).html
        let lengths = "minlength=\"\(PasswordPolicy.minimumLength)\" maxlength=\"\(PasswordPolicy.maximumLength)\""
        html +=
            FormField(
                name: "password", label: PasswordResetText.newPassword[lang], type: "password",
                autocomplete: "new-password", hint: PasswordPolicy.hint[lang], error: errors["password"]?[lang],
                attributes: lengths
            ).html
        html +=
            FormField(
                name: "password_confirmation", label: PasswordResetText.confirmation[lang], type: "password",
                autocomplete: "new-password", error: errors["password_confirmation"]?[lang], attributes: lengths
            ).html
        html += """
            <label class="check needs-js" for="show-password"><input type="checkbox" id="show-password"> \
            \(PasswordResetText.showPasswords[lang])</label>
            <p class="small">\(text.effect[lang])</p>
            <button type="submit" class="button primary">\(text.save[lang])</button>
            </form>
            <p><a href="\(AccountEndpoint.path)">\(text.cancel[lang])</a></p>

            """
        return PageLayout.page(title: text.title[lang], content: html, status: status, language: lang)
    }
}
