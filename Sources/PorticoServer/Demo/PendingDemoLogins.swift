import Foundation
import PorticoCrypto
import Synchronization

/// The demo app's sign-ins in progress, keyed by `state`: the PKCE verifier and the nonce stay
/// on the server, and the browser holds only the state in an HttpOnly cookie that binds the
/// flow to it (RFC 9700 §4.7.1, CSRF).
///
/// Entries are single use, expire after ten minutes, and are capped in number so that
/// someone reloading `/demo/login` in a loop cannot grow memory without bound.
final class PendingDemoLogins: Sendable {
    /// What the callback needs to finish one sign-in.
    struct Login: Sendable {
        /// The PKCE code verifier (RFC 7636).
        let codeVerifier: String
        /// The OpenID Connect nonce the ID token must carry.
        let nonce: String
        /// When the sign-in started.
        let startedAt: Date
    }

    /// How long a sign-in may take.
    static let lifetime: TimeInterval = 600
    /// How many sign-ins may be pending at once; the oldest are dropped beyond it.
    static let capacity = 1000

    private let logins = Mutex<[String: Login]>([:])

    /// Starts a sign-in and returns its state, verifier and nonce.
    func start(now: Date = Date()) -> (state: String, login: Login) {
        let state = SecureRandom.token()
        let login = Login(codeVerifier: PKCE.makeVerifier(), nonce: SecureRandom.token(), startedAt: now)
        logins.withLock { logins in
            logins = logins.filter { now.timeIntervalSince($0.value.startedAt) < Self.lifetime }
            while logins.count >= Self.capacity,
                let oldest = logins.min(by: { $0.value.startedAt < $1.value.startedAt })
            {
                logins[oldest.key] = nil
            }
            logins[state] = login
        }
        return (state, login)
    }

    /// Removes and returns the unexpired sign-in for `state`; nil when there is none.
    func finish(state: String, now: Date = Date()) -> Login? {
        logins.withLock { logins in
            guard let login = logins.removeValue(forKey: state),
                now.timeIntervalSince(login.startedAt) < Self.lifetime
            else { return nil }
            return login
        }
    }
}
