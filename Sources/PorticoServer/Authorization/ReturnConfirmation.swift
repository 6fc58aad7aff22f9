import PorticoCrypto
import PorticoHTTP

/// Whether the person behind a "keep me signed in" session has confirmed, in this run of the
/// browser, that it is still them ("Continue as Ann").
///
/// Why a second cookie: a persistent session outlives the browser, and the seed's experience is
/// a one-click confirmation the next time an app asks, so that whoever opens the browser next
/// sees whose account it is before any app gets it. The `portico_confirmed` cookie has no
/// `Max-Age`, so it dies when the browser closes, while the session lives on. Its value is
/// HMAC-SHA256(session token, "confirmed"): bound to that one session (worthless after a
/// switch of account), checkable by any node without storage, and unforgeable without the
/// HttpOnly session token. It is set after a password sign-in and after "Continue".
enum ReturnConfirmation {
    /// The cookie's name.
    static let cookieName = "portico_confirmed"

    /// Whether the authorization endpoint must ask "Continue as …?" before going on: the
    /// session is persistent and not confirmed in this browser run.
    static func isNeeded(for signedIn: SignInSession, in request: Request, secure: Bool) -> Bool {
        guard signedIn.session.isPersistent else { return false }
        guard let presented = request.cookies[PageCookie.name(cookieName, secure: secure)] else { return true }
        return !ConstantTime.equals(presented, value(for: signedIn.token))
    }

    /// The browser-session cookie that marks `signedIn` as confirmed.
    static func cookie(for signedIn: SignInSession, secure: Bool) -> Cookie {
        Cookie(name: PageCookie.name(cookieName, secure: secure), value: value(for: signedIn.token), isSecure: secure)
    }

    /// The cookie that deletes the mark (sign-out).
    static func expiredCookie(secure: Bool) -> Cookie {
        var cookie = Cookie.expired(name: PageCookie.name(cookieName, secure: secure))
        cookie.isSecure = secure
        return cookie
    }

    private static func value(for sessionToken: String) -> String {
        Base64URL.encode(HMAC.authenticationCode(for: Array("confirmed".utf8), key: Array(sessionToken.utf8)))
    }
}
