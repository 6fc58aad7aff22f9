import PorticoCrypto
import PorticoHTTP

/// Cross-site request forgery protection for every form.
///
/// The browser gets a `portico_csrf` cookie holding a 256-bit random secret (`HttpOnly`,
/// `SameSite=Lax`, ending with the browser). A form's token is
/// HMAC-SHA256(secret, purpose), where the purpose names the form and binds it to the pending
/// authorization request (and, for consent, to the signed-in session). A forged form from
/// another site cannot know the secret, so it cannot compute the token; and a token made for
/// one request, person or form is useless for another. No server-side key is involved, so
/// any node can check a token another node issued.
enum CSRFProtection {
    /// The cookie's name.
    static let cookieName = "portico_csrf"
    /// The form field's name.
    static let fieldName = "csrf_token"

    /// The browser's CSRF secret, or nil when it has none (or a malformed one).
    static func secret(in request: Request, secure: Bool) -> String? {
        guard let value = request.cookies[PageCookie.name(cookieName, secure: secure)],
            SignInSession.isWellFormed(value)
        else { return nil }
        return value
    }

    /// The browser's secret, making a new one (and the cookie that carries it) when it has none.
    static func ensureSecret(in request: Request, secure: Bool) -> (secret: String, cookie: Cookie?) {
        if let existing = secret(in: request, secure: secure) { return (existing, nil) }
        let fresh = SecureRandom.token()
        return (fresh, Cookie(name: PageCookie.name(cookieName, secure: secure), value: fresh, isSecure: secure))
    }

    /// The token for a form with `purpose` in a browser whose secret is `secret`.
    static func token(secret: String, purpose: String) -> String {
        Base64URL.encode(HMAC.authenticationCode(for: Array(purpose.utf8), key: Array(secret.utf8)))
    }

    /// Whether `form` carries the right token for `purpose`, compared in constant time.
    static func verify(_ form: FormParameters, request: Request, purpose: String, secure: Bool) -> Bool {
        guard let secret = secret(in: request, secure: secure), form.values(for: fieldName).count == 1,
            let presented = form[fieldName]
        else { return false }
        return ConstantTime.equals(presented, token(secret: secret, purpose: purpose))
    }

    /// The purpose of the sign-in form for a pending request (or for signing in without one).
    static func loginPurpose(requestID: String?) -> String {
        "login:" + (requestID ?? "-")
    }

    /// The purpose of the consent form: bound to the request and to the session it was shown
    /// for, so a switch of account in another tab invalidates it.
    static func consentPurpose(requestID: String, sessionHashedID: String) -> String {
        "consent:\(requestID):\(sessionHashedID)"
    }

    /// The purpose of the "Continue as …" form: bound to the request and the session.
    static func continuePurpose(requestID: String, sessionHashedID: String) -> String {
        "continue:\(requestID):\(sessionHashedID)"
    }

    /// The purpose of the forms on Your Account: bound to the session that shows them.
    static func accountPurpose(sessionHashedID: String) -> String {
        "account:\(sessionHashedID)"
    }

    /// The purpose of the developer console's forms: bound to the session that shows them.
    static func developerPurpose(sessionHashedID: String) -> String {
        "developer:\(sessionHashedID)"
    }

    /// The purpose of the sign-out confirmation: bound to the session it would end.
    static func logoutPurpose(sessionHashedID: String) -> String {
        "logout:\(sessionHashedID)"
    }
}
