import PorticoHTTP
import PorticoStore

/// The pages of Your Account's two-step verification (`/account/two-step`): enrollment (QR code,
/// the key as text, the first code and the password), the recovery codes shown once, and management (new
/// recovery codes, turning it off, both with the password). Labels are tied to inputs and
/// errors announced (`role="alert"`), so every page works from the keyboard and a screen reader.
enum TwoStepPages {
    /// The enrollment page for `keyURI` and its `secret`.
    static func enrollment(
        user: UserRecord, keyURI: String, secret: [UInt8], csrfToken: String, error: Localized?,
        language: PageLanguage, status: HTTPStatus = .ok
    ) -> Response {
        let text = TwoStepText.self
        var html = "<h1>\(text.title[language])</h1>\n"
        html += "<p class=\"lead\">\(HTML.escape(user.email))</p>\n"
        if let error {
            html += "<div class=\"alert\" role=\"alert\" id=\"two-step-error\">\(HTML.escape(error[language]))</div>\n"
        }
        html += "<p>\(text.scanStep[language])</p>\n"
        html += QRCodeSVG.svg(for: keyURI, label: text.qrLabel[language]) ?? ""
        html += "\n<p class=\"small\" id=\"secret-caption\">\(text.typeKey[language])</p>\n"
        html += "<p class=\"secret\" id=\"secret\" aria-describedby=\"secret-caption\">"
        html += "\(HTML.escape(TwoStepVerification.grouped(secret)))</p>\n"
        html += "<form method=\"post\" action=\"\(action(language))\" novalidate>\n"
        html += HTML.hiddenField(name: CSRFProtection.fieldName, value: csrfToken) + "\n"
        html += HTML.hiddenField(name: "action", value: "confirm") + "\n"
        html += "<p>\(text.confirmStep[language])</p>\n"
        html += codeField(invalid: error != nil, language: language)
        html += "<p>\(text.confirmPasswordStep[language])</p>\n"
        html +=
            FormField(
                name: "confirm_password", label: PasswordChangeText.currentPassword[language], type: "password",
                autocomplete: "current-password", isRequired: false,
                attributes: "maxlength=\"\(PasswordPolicy.maximumLength)\"" + (error != nil ? invalidAttributes : "")
            ).html
        html += "<button type=\"submit\" class=\"button primary\">\(text.confirm[language])</button>\n</form>\n"
        html += "<p><a href=\"\(AccountEndpoint.path)\">\(PasswordChangeText.cancel[language])</a></p>\n"
        return PageLayout.page(title: text.title[language], content: html, status: status, language: language)
    }

    /// The page that shows new recovery codes, once.
    static func recoveryCodes(_ codes: [String], language: PageLanguage, notice: Localized?) -> Response {
        let text = TwoStepText.self
        var html = "<h1>\(text.codesTitle[language])</h1>\n"
        if let notice { html += "<div class=\"notice\" role=\"status\">\(notice[language])</div>\n" }
        html += "<p>\(text.codesLead[language])</p>\n"
        html += "<ul class=\"recovery-codes\" id=\"recovery-codes\" aria-label=\"\(text.codesListLabel[language])\">\n"
        for code in codes { html += "<li><code>\(HTML.escape(code))</code></li>\n" }
        html += "</ul>\n"
        var done = AccountEndpoint.path + "?done=" + AccountPage.Notice.twoStepOn.rawValue
        if language != .english { done += "&ui_locales=" + language.rawValue }
        html +=
            "<p><a class=\"button primary\" id=\"codes-saved\" href=\"\(HTML.escape(done))\">\(text.saved[language])</a></p>\n"
        return PageLayout.page(title: text.codesTitle[language], content: html, language: language)
    }

    /// The management page of an enrolled person.
    static func management(
        user: UserRecord, remaining: Int, csrfToken: String, errors: [String: Localized], alert: Localized?,
        language: PageLanguage, status: HTTPStatus = .ok
    ) -> Response {
        let text = TwoStepText.self
        var html = "<h1>\(text.title[language])</h1>\n"
        html += "<p class=\"lead\">\(HTML.escape(user.email))</p>\n"
        // A refusal (throttled) above the forms; a wrong password at its own field, announced.
        if let alert {
            html += "<div class=\"alert\" role=\"alert\" id=\"two-step-error\">\(HTML.escape(alert[language]))</div>\n"
        }
        html += "<p id=\"two-step-state\">\(text.on(remaining: remaining)[language])</p>\n"
        html += passwordForm(
            action: "regenerate", heading: text.regenerateHeading[language], lead: text.regenerateLead[language],
            button: text.regenerate[language], style: "secondary", csrfToken: csrfToken,
            error: errors["regenerate"]?[language], language: language)
        html += passwordForm(
            action: "remove", heading: text.removeHeading[language], lead: text.removeLead[language],
            button: text.remove[language], style: "secondary", csrfToken: csrfToken,
            error: errors["remove"]?[language], language: language)
        html += "<p><a href=\"\(AccountEndpoint.path)\">\(PasswordChangeText.cancel[language])</a></p>\n"
        return PageLayout.page(title: text.title[language], content: html, status: status, language: language)
    }

    private static func passwordForm(
        action name: String, heading: String, lead: String, button: String, style: String, csrfToken: String,
        error: String?, language: PageLanguage
    ) -> String {
        var html = "<h2 id=\"\(name)-heading\">\(heading)</h2>\n<p class=\"small\">\(lead)</p>\n"
        html += "<form method=\"post\" action=\"\(action(language))\" aria-labelledby=\"\(name)-heading\" novalidate>\n"
        html += HTML.hiddenField(name: CSRFProtection.fieldName, value: csrfToken) + "\n"
        html += HTML.hiddenField(name: "action", value: name) + "\n"
        html +=
            FormField(
                name: "\(name)_password", label: PasswordChangeText.currentPassword[language], type: "password",
                autocomplete: "current-password", error: error,
                attributes: "maxlength=\"\(PasswordPolicy.maximumLength)\""
            ).html
        html +=
            "<button type=\"submit\" class=\"button \(style)\" id=\"\(name)-button\">\(HTML.escape(button))</button>\n"
        return html + "</form>\n"
    }

    /// The 6-digit code field (`otp`), as the enrollment and sign-in pages use it; when `invalid`,
    /// marked so and described by the page's alert (`#two-step-error`), which says what is wrong.
    static func codeField(invalid: Bool, language: PageLanguage) -> String {
        FormField(
            name: "otp", label: TwoStepText.codeLabel[language], autocomplete: "one-time-code", isRequired: false,
            attributes: "inputmode=\"numeric\" pattern=\"[0-9 ]*\" maxlength=\"8\" class=\"code-input\""
                + (invalid ? Self.invalidAttributes : "")
        ).html
    }

    /// What marks a field the alert above speaks of.
    static let invalidAttributes = " aria-invalid=\"true\" aria-describedby=\"two-step-error\""

    /// The form action, keeping a language chosen by `ui_locales`.
    private static func action(_ language: PageLanguage) -> String {
        TwoStepEndpoint.path + (language == .english ? "" : "?ui_locales=" + language.rawValue)
    }
}
