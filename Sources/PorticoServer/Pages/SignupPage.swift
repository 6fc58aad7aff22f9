import PorticoHTTP

/// The create-account page (`GET /signup`): name, e-mail, password and an optional postal
/// code, naming the app when the person came from an authorization.
///
/// Field names: `name`, `email`, `password`, `postal_code`. After a refused attempt the page
/// shows each problem next to its field and keeps everything typed except the password.
struct SignupPage {
    /// The English words of the page, in one place.
    enum Words {
        static let title = "Create account"
        static let name = "Your name"
        static let email = "Email"
        static let password = "Password"
        static let postalCode = "Postal code (optional)"
        static let postalHint = "Apps you allow to see it can use it for delivery or local offers."
        static let showPassword = "Show password"
        static let submit = "Create your account"
        static let haveAccount = "Already have an account?"
        static let signIn = "Sign in"
        static let problem = "There was a problem"
        static let fixBelow = "Please correct the fields marked below."
        static func lead(appName: String?) -> String {
            appName.map { "to continue to \($0)" } ?? "for \(PageLayout.platformName) and the apps you use with it"
        }
        static var passwordHint: String {
            "At least \(PasswordPolicy.minimumLength) characters. A few unrelated words make a strong password."
        }
        static let readyTitle = "Your account is ready"
        static func readyText(name: String, email: String) -> String {
            "Welcome, \(name). You are signed in as \(email) and can now use Login with \(PageLayout.platformName) "
                + "with apps that offer it."
        }
        static let manage = "Go to Your Account"
    }

    /// What the person typed (kept after a refused attempt; the password never is).
    struct Values {
        var name = ""
        var email = ""
        var postalCode = ""
    }

    /// The requesting app's name, when the page is part of an authorization.
    var appName: String?
    /// The sealed pending request, carried in a hidden field.
    var sealedRequest: String?
    /// The CSRF token for the form.
    var csrfToken: String
    /// The values to show.
    var values = Values()
    /// Problems by field name.
    var errors: [String: String] = [:]

    /// The page as a response (200, also when shown again with problems).
    func response() -> Response {
        var html = "<h1>\(HTML.escape(Words.title))</h1>\n"
        html += "<p class=\"lead\">\(HTML.escape(Words.lead(appName: appName)))</p>\n"
        if !errors.isEmpty {
            html += """
                <div class="alert" role="alert" id="signup-error"><strong>\(HTML.escape(Words.problem))</strong>\
                \(HTML.escape(Words.fixBelow))</div>

                """
        }
        html += "<form method=\"post\" action=\"/signup\" novalidate>\n"
        html += HTML.hiddenField(name: CSRFProtection.fieldName, value: csrfToken) + "\n"
        if let sealedRequest { html += HTML.hiddenField(name: AuthorizationFlow.requestField, value: sealedRequest) + "\n" }
        html += FormField(
            name: "name", label: Words.name, value: values.name, autocomplete: "name", error: errors["name"],
            attributes: "maxlength=\"200\""
        ).html
        html += FormField(
            name: "email", label: Words.email, type: "email", value: values.email, autocomplete: "email",
            error: errors["email"], attributes: "autocapitalize=\"none\" spellcheck=\"false\" maxlength=\"254\""
        ).html
        html += FormField(
            name: "password", label: Words.password, type: "password", autocomplete: "new-password",
            hint: Words.passwordHint, error: errors["password"],
            attributes: "minlength=\"\(PasswordPolicy.minimumLength)\" maxlength=\"\(PasswordPolicy.maximumLength)\""
        ).html
        html += """
            <label class="check needs-js" for="show-password"><input type="checkbox" id="show-password"> \
            \(HTML.escape(Words.showPassword))</label>

            """
        html += FormField(
            name: "postal_code", label: Words.postalCode, value: values.postalCode, autocomplete: "postal-code",
            isRequired: false, hint: Words.postalHint, error: errors["postal_code"], attributes: "maxlength=\"20\""
        ).html
        html += "<button type=\"submit\" class=\"button primary\">\(HTML.escape(Words.submit))</button>\n</form>\n"
        html += "<div class=\"divider\">\(HTML.escape(Words.haveAccount))</div>\n"
        html += "<a class=\"button secondary\" href=\"\(HTML.escape(loginLink))\">\(HTML.escape(Words.signIn))</a>\n"
        html += """
            <p class="small">By creating an account you agree to the <a href="/terms">Conditions of Use</a> and the \
            <a href="/privacy">Privacy Notice</a>.</p>

            """
        return PageLayout.page(title: Words.title, content: html)
    }

    /// The sign-in page, for the same pending request.
    private var loginLink: String {
        guard let sealedRequest else { return AuthorizationFlow.loginPath }
        return AuthorizationResponse.location(AuthorizationFlow.loginPath, [(AuthorizationFlow.requestField, sealedRequest)])
    }

    /// The page after an account was created without an authorization to go on with.
    static func ready(name: String, email: String) -> Response {
        let html = """
            <h1>\(HTML.escape(Words.readyTitle))</h1>
            <div class="notice" role="status" id="account-ready"><p>\(HTML.escape(Words.readyText(name: name, email: email)))</p></div>
            <a class="button primary" href="/account">\(HTML.escape(Words.manage))</a>

            """
        return PageLayout.page(title: Words.readyTitle, content: html)
    }
}
