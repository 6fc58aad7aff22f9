import Foundation
import PorticoHTTP
import PorticoStore

/// The Login Status API (FedCM): `Set-Login: logged-in` on every response that signs a person
/// in, `logged-out` on every one that signs them out, and the cookie the FedCM endpoints read.
///
/// Why a second cookie: browsers send only `SameSite=None` cookies with FedCM's requests to
/// the accounts, assertion and disconnect endpoints, while the session cookie stays
/// `SameSite=Lax` for every page. This one carries the same session token, but only to
/// `/fedcm/` (its `Path`), `HttpOnly` and `Secure`; those endpoints answer only requests with
/// `Sec-Fetch-Dest: webidentity`, a header no page can set, so the cross-site cookie opens
/// nothing to a forged request. Browsers keep `Secure` cookies over http on loopback, so local
/// development works as well.
enum LoginStatus {
    /// The header's name.
    static let header = "Set-Login"
    /// The cookie's name; `__Secure-` on an https issuer (it cannot be `__Host-`: its path is
    /// not `/`).
    static func cookieName(_ environment: PageEnvironment) -> String {
        environment.usesHTTPS ? "__Secure-portico_fedcm" : "portico_fedcm"
    }
    /// Where the cookie is sent.
    static let cookiePath = "/fedcm/"

    /// Marks `response` as a sign-in of the session `session` (token `token`).
    static func signedIn(
        _ response: inout Response, token: String, session: BrowserSession, environment: PageEnvironment
    ) {
        response.headers[header] = "logged-in"
        var cookie = Cookie(
            name: cookieName(environment), value: token, path: cookiePath, isSecure: true,
            sameSite: Cookie.SameSite.none)
        if session.isPersistent {
            let now = environment.now()
            cookie.maxAge = max(1, Int(session.expiresAt.timeIntervalSince(now).rounded(.down)))
            cookie.expires = session.expiresAt
        }
        response.setCookie(cookie)
    }

    /// Marks `response` as a sign-out: the header, and the cookie deleted.
    static func signedOut(_ response: inout Response, environment: PageEnvironment) {
        response.headers[header] = "logged-out"
        var cookie = Cookie.expired(name: cookieName(environment), path: cookiePath)
        cookie.isSecure = true
        cookie.sameSite = Cookie.SameSite.none
        response.setCookie(cookie)
    }

    /// The live session a FedCM request carries: its own cookie's, else the session cookie's
    /// (a same-site request), with an enabled person; nil when signed out.
    static func session(of request: Request, environment: PageEnvironment) throws -> SignInSession? {
        if let token = request.cookies[cookieName(environment)], SignInSession.isWellFormed(token) {
            let now = environment.now()
            let found = try environment.store.read { transaction -> SignInSession? in
                guard let session = try transaction.session(token: token, now: now),
                    let user = try transaction.user(id: session.userID), !user.isDisabled
                else { return nil }
                return SignInSession(token: token, session: session, user: user)
            }
            if let found { return found }
        }
        return try SignInSession.current(in: request, environment: environment)
    }
}
