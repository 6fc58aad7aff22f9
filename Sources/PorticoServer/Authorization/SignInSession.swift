import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// The browser's sign-in session: the `portico_session` cookie and the `BrowserSession` it
/// stands for.
///
/// The cookie holds a 256-bit random token; the store keeps only its SHA-256. The cookie is
/// `HttpOnly`, `SameSite=Lax` (sent on the top-level redirects OAuth needs), `Path=/`, and
/// `Secure` when the issuer is https. Without "Keep me signed in" it has no `Max-Age` and dies
/// with the browser, and the server-side session ends after `lifetimes.session` (12 h) without
/// use or `lifetimes.sessionMaximum` (24 h) after sign-in. With it, cookie and session last
/// `lifetimes.persistentSession` (30 days) from the last use, sliding, but never beyond
/// `lifetimes.persistentSessionMaximum` (90 days) after the password was entered. Every sign-in
/// makes a new token and ends the old session, so a token planted before sign-in is worthless
/// after it (no session fixation).
struct SignInSession: Sendable {
    /// The cookie's name.
    static let cookieName = "portico_session"

    /// The cookie value (the plain session token).
    let token: String
    /// The stored session.
    let session: BrowserSession
    /// Who is signed in.
    let user: UserRecord

    /// The live session of `request`'s browser with an enabled user, or nil.
    static func current(in request: Request, environment: PageEnvironment) throws -> SignInSession? {
        guard let token = request.cookies[cookieName(environment)], isWellFormed(token) else { return nil }
        let now = environment.now()
        return try environment.store.read { transaction in
            guard let session = try transaction.session(token: token, now: now),
                let user = try transaction.user(id: session.userID), !user.isDisabled
            else { return nil }
            return SignInSession(token: token, session: session, user: user)
        }
    }

    /// Starts a session for `user`, ending the browser's previous one, and returns it with the
    /// cookie to set.
    ///
    /// One transaction writes the session, its `amr` when more than a password was used
    /// (`methods`), and the `session.start` audit row that is the person's sign-in history
    /// (Download your data); it carries the methods, never the address or the browser, which
    /// the session row holds and loses when the session ends. `alongside` runs first in that
    /// transaction, for what must commit with the session or not at all (a passkey's counter);
    /// when it throws, nothing is written and the error is rethrown.
    static func start(
        for user: UserRecord, persistent: Bool, methods: [String] = AuthenticationMethods.password,
        replacing previousToken: String?, request: Request, environment: PageEnvironment,
        alongside: (any StoreTransaction) throws -> Void = { _ in }
    ) throws -> (SignInSession, Cookie) {
        let now = environment.now()
        let token = SecureRandom.token()
        let expiresAt = expiry(persistent: persistent, authTime: now, now: now, lifetimes: environment.lifetimes)
        let session = BrowserSession(
            token: token, userID: user.id, createdAt: now, expiresAt: expiresAt,
            lastSeenAt: now, authTime: now, isPersistent: persistent,
            userAgent: request.headers["User-Agent"].map { String($0.prefix(512)) },
            ipAddress: request.remoteAddress.isEmpty ? nil : request.remoteAddress)
        let stored = try environment.store.transaction { transaction -> BrowserSession in
            try alongside(transaction)
            if let previousToken, isWellFormed(previousToken) {
                // Signing in again (another person, say) signs the previous session out.
                try BackChannelLogout.enqueueSessionEnd(browserSessionToken: previousToken, now: now, in: transaction)
                try transaction.deleteSession(token: previousToken)
            }
            try transaction.insert(session)
            if methods != AuthenticationMethods.password {
                try transaction.recordAuthenticationMethods(methods, forSessionHashedID: session.hashedID)
            }
            try transaction.append(
                AuditEvent(
                    occurredAt: now, actor: user.id, action: "session.start", subject: user.id,
                    details: JSONValue.object(["methods": .array(methods.map(JSONValue.string))]).jsonString))
            return try transaction.session(token: token, now: now) ?? session
        }
        let cookie =
            persistent
            ? persistentCookie(token: token, expiresAt: expiresAt, now: now, environment: environment)
            : Cookie(name: cookieName(environment), value: token, isSecure: environment.usesHTTPS)
        return (SignInSession(token: token, session: stored, user: user), cookie)
    }

    /// Records that the browser used its session now and slides the expiry (see the type's
    /// comment), at most once per `lifetimes.sessionTouchInterval`.
    ///
    /// - Returns: for a persistent session that was extended, the cookie with the new
    ///   `Max-Age`, which the caller sets on its response; nil otherwise.
    static func keepAlive(_ signedIn: SignInSession, environment: PageEnvironment) throws -> Cookie? {
        let now = environment.now()
        let session = signedIn.session
        guard now.timeIntervalSince(session.lastSeenAt) >= environment.lifetimes.sessionTouchInterval else {
            return nil
        }
        let expiresAt = max(
            session.expiresAt,
            expiry(
                persistent: session.isPersistent, authTime: session.authTime, now: now, lifetimes: environment.lifetimes
            )
        )
        let touched = try environment.store.transaction {
            try $0.touchSession(token: signedIn.token, lastSeenAt: now, expiresAt: expiresAt)
        }
        guard touched, session.isPersistent else { return nil }
        return persistentCookie(token: signedIn.token, expiresAt: expiresAt, now: now, environment: environment)
    }

    /// When a session used at `now` ends: the idle limit from now, capped by the maximum from
    /// the password entry.
    static func expiry(persistent: Bool, authTime: Date, now: Date, lifetimes: TokenLifetimes) -> Date {
        let idle = persistent ? lifetimes.persistentSession : lifetimes.session
        let maximum = persistent ? lifetimes.persistentSessionMaximum : lifetimes.sessionMaximum
        return min(now.addingTimeInterval(idle), authTime.addingTimeInterval(maximum))
    }

    /// The "keep me signed in" cookie: `Max-Age` for today's browsers and `Expires` for old
    /// ones, both ending with the server-side session.
    private static func persistentCookie(token: String, expiresAt: Date, now: Date, environment: PageEnvironment)
        -> Cookie
    {
        Cookie(
            name: cookieName(environment), value: token,
            maxAge: max(1, Int(expiresAt.timeIntervalSince(now).rounded(.down))),
            expires: expiresAt, isSecure: environment.usesHTTPS)
    }

    /// Ends the browser's session (if any) and returns the cookie that deletes it.
    static func end(in request: Request, environment: PageEnvironment) throws -> Cookie {
        if let token = request.cookies[cookieName(environment)], isWellFormed(token) {
            let now = environment.now()
            _ = try environment.store.transaction { transaction in
                // Apps that listen hear of it; Native SSO sessions begun in this browser end with it
                // (every app's tokens).
                try BackChannelLogout.enqueueSessionEnd(browserSessionToken: token, now: now, in: transaction)
                try NativeSSO.endSessions(browserSessionToken: token, now: now, in: transaction)
                return try transaction.deleteSession(token: token)
            }
        }
        var cookie = Cookie.expired(name: cookieName(environment))
        cookie.isSecure = environment.usesHTTPS
        return cookie
    }

    /// The session cookie's name for `environment`'s issuer (``PageCookie``).
    static func cookieName(_ environment: PageEnvironment) -> String {
        PageCookie.name(cookieName, secure: environment.usesHTTPS)
    }

    /// Whether a cookie value could be a session token (43 base64url characters), so junk
    /// never reaches the database.
    static func isWellFormed(_ token: String) -> Bool {
        token.utf8.count == 43 && token.utf8.allSatisfy(Base64URLAlphabet.contains)
    }
}

/// The base64url alphabet, for checking tokens before use.
enum Base64URLAlphabet {
    /// Whether `byte` is `A`–`Z`, `a`–`z`, `0`–`9`, `-` or `_`.
    static func contains(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default:
            false
        }
    }
}
