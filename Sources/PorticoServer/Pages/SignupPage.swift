import PorticoHTTP

/// The create-account page (`GET /signup`): name, e-mail, password and an optional postal
/// code, naming the app when the person came from an authorization; and the pages around it
/// ("check your e-mail", "your account is ready").
///
/// Field names: `name`, `email`, `password`, `postal_code`; where the browser has passkeys, a
/// second button `name="use_passkey"` (`#signup-passkey`) asks for an account with a passkey and
/// no password (the password is then left empty). After a refused attempt the page
/// shows each problem next to its field and keeps everything typed except the password.
struct SignupPage {
    /// What the person typed (kept after a refused attempt; the password never is).
    struct Values {
        /// The display name.
        var name = ""
        /// The e-mail address.
        var email = ""
        /// The postal code, or empty.
        var postalCode = ""
    }

    /// The requesting app's name, when the page is part of an authorization.
    var appName: String?
    /// The sealed pending request, carried in a hidden field.
    var sealedRequest: String?
    /// The CSRF token for the form.
    var csrfToken: String
    /// The page's language.
    var language: PageLanguage
    /// The values to show.
    var values = Values()
    /// Problems by field name.
    var errors: [String: Localized] = [:]

    /// The page as a response (200, also when shown again with problems).
    func response() -> Response {
        let text = SignupText.self
        let lang = language
        var html = "<h1>\(text.title[lang])</h1>\n"
        let lead = appName.map { text.toContinueTo("<span class=\"app-name\">\(HTML.escape($0))</span>") }
        html += "<p class=\"lead\">\((lead ?? text.forPlatform)[lang])</p>\n"
        if !errors.isEmpty {
            html += """
                <div class="alert" role="alert" id="signup-error"><strong>\(text.problem[lang])</strong>\
                \(text.fixBelow[lang])</div>

                """
        }
        html += "<form method=\"post\" action=\"\(SignupEndpoint.path)\" novalidate>\n"
        html += HTML.hiddenField(name: CSRFProtection.fieldName, value: csrfToken) + "\n"
        if let sealedRequest {
            html += HTML.hiddenField(name: AuthorizationFlow.requestField, value: sealedRequest) + "\n"
        }
        html +=
            FormField(
                name: "name", label: text.name[lang], value: values.name, autocomplete: "name",
                error: errors["name"]?[lang], attributes: "maxlength=\"200\""
            ).html
        html +=
            FormField(
                name: "email", label: text.email[lang], type: "email", value: values.email, autocomplete: "email",
                error: errors["email"]?[lang],
                attributes: "autocapitalize=\"none\" spellcheck=\"false\" maxlength=\"254\""
            ).html
        html +=
            FormField(
                name: "password", label: text.password[lang], type: "password", autocomplete: "new-password",
                hint: PasswordPolicy.hint[lang], error: errors["password"]?[lang],
                attributes:
                    "minlength=\"\(PasswordPolicy.minimumLength)\" maxlength=\"\(PasswordPolicy.maximumLength)\""
            ).html
        html += """
            <label class="check needs-js" for="show-password"><input type="checkbox" id="show-password"> \
            \(text.showPassword[lang])</label>

            """
        html +=
            FormField(
                name: "postal_code", label: text.postalCode[lang], value: values.postalCode,
                autocomplete: "postal-code", isRequired: false, hint: text.postalHint[lang],
                error: errors["postal_code"]?[lang], attributes: "maxlength=\"20\""
            ).html
        html += """
            <button type="submit" class="button primary">\(text.submit[lang])</button>
            <div class="needs-passkeys" id="signup-passkey-option" hidden>
            <div class="divider">\(PasskeyText.or[lang])</div>
            <button type="submit" class="button secondary" name="\(SignupEndpoint.passkeyField)" value="1" \
            id="signup-passkey">\(PasskeyText.signUpInstead[lang])</button>
            <p class="small">\(PasskeyText.signUpHint[lang])</p>
            </div>
            </form>
            <div class="divider">\(text.haveAccount[lang])</div>
            <a class="button secondary" href="\(HTML.escape(loginLink))">\(text.signIn[lang])</a>
            <p class="small">\(text.agreement[lang])</p>
            \(PasskeyScript.tag)
            """
        return PageLayout.page(title: text.title[lang], content: html, language: lang)
    }

    /// The sign-in page, for the same pending request.
    private var loginLink: String {
        guard let sealedRequest else { return AuthorizationFlow.loginPath }
        return AuthorizationResponse.location(
            AuthorizationFlow.loginPath, [(AuthorizationFlow.requestField, sealedRequest)])
    }

    /// The answer to every well-formed sign-up, whether or not the address has an account
    /// (`email` as typed). Its links keep the pending request.
    static func sent(email: String, sealedRequest: String?, language: PageLanguage) -> Response {
        let text = SignupVerifyText.self
        var again = SignupEndpoint.path
        if let sealedRequest {
            again = AuthorizationResponse.location(again, [(AuthorizationFlow.requestField, sealedRequest)])
        }
        let hours = SignupVerifyEndpoint.linkLifetimeHours
        let html = """
            <h1>\(text.sentTitle[language])</h1>
            <div class="notice" role="status" id="signup-sent"><p>\(text.sent(HTML.escape(email))[language])</p></div>
            <p>\(text.sentDetails(hours: hours)[language])</p>
            <a class="button secondary" href="\(HTML.escape(again))">\(text.startAgain[language])</a>
            <p class="links"><a href="\(HTML.escape(ForgotPasswordPage.loginLink(sealedRequest)))">\
            \(text.backToSignIn[language])</a></p>

            """
        return PageLayout.page(title: text.sentTitle[language], content: html, language: language)
    }

    /// The page after an account was created without an authorization to go on with.
    static func ready(name: String, email: String, language: PageLanguage) -> Response {
        let text = SignupText.self
        let welcome = text.readyText(name: HTML.escape(name), email: HTML.escape(email))[language]
        let html = """
            <h1>\(text.readyTitle[language])</h1>
            <div class="notice" role="status" id="account-ready"><p>\(welcome)</p></div>
            <a class="button primary" href="/account">\(text.manage[language])</a>

            """
        return PageLayout.page(title: text.readyTitle[language], content: html, language: language)
    }
}
