import PorticoHTTP
import PorticoStore

/// Your Account's change-password form (`GET /account/password`): the current password, the
/// new one twice, a "Show passwords" box, and what saving will do. Labels are tied to their
/// inputs and errors to their fields, so the form works from the keyboard and a screen reader.
///
/// An account made with a passkey and no password gets "Set a password" instead: no current
/// password to ask for, so a passkey sign-in of the last few minutes stands in for it, and an
/// older sign-in gets a link to sign in again first.
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
    /// Whether the form may be shown for a first password: the account has none and this
    /// browser signed in with a passkey recently (otherwise it is told to sign in again).
    var recentPasskeySignIn = false

    /// Whether this sets the account's first password (it was made with a passkey alone).
    var setsFirstPassword: Bool { user.passwordHash.isEmpty }

    /// The form as a response.
    func response() -> Response {
        let text = PasswordChangeText.self
        let lang = language
        let title = setsFirstPassword ? text.setTitle : text.title
        var html = "<h1>\(title[lang])</h1>\n"
        html += "<p class=\"lead\">\(text.lead(HTML.escape(user.email))[lang])</p>\n"
        if setsFirstPassword && !recentPasskeySignIn {
            let again = ReturnPath.signInLocation(returningTo: PasswordChangeEndpoint.path)
            html += "<p id=\"password-set-reauthenticate\">\(text.setNeedsSignIn[lang])</p>\n"
            html += "<p><a class=\"button primary\" href=\"\(HTML.escape(again))\">\(text.signInAgain[lang])</a></p>\n"
            html += "<p><a href=\"\(AccountEndpoint.path)\">\(text.cancel[lang])</a></p>\n"
            return PageLayout.page(title: title[lang], content: html, status: status, language: lang)
        }
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
        if !setsFirstPassword {
            html +=
                FormField(
                    name: "current_password", label: text.currentPassword[lang], type: "password",
                    autocomplete: "current-password", error: errors["current_password"]?[lang],
                    attributes: "maxlength=\"\(PasswordPolicy.maximumLength)\""
                ).html
        }
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
            <button type="submit" class="button primary">\((setsFirstPassword ? text.setSave : text.save)[lang])</button>
            </form>
            <p><a href="\(AccountEndpoint.path)">\(text.cancel[lang])</a></p>

            """
        return PageLayout.page(title: title[lang], content: html, status: status, language: lang)
    }
}
