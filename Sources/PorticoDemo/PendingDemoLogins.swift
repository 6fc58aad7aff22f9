import Foundation
import PorticoCrypto

/// The demo app's sign-ins in progress, kept by no node: the PKCE verifier and the nonce are
/// derived from the `state` under a secret every node shares, and the browser holds only the
/// state, in an HttpOnly cookie that binds the flow to it (RFC 9700 §4.7.1, CSRF).
///
/// Why derived rather than remembered: behind a load balancer the callback may reach another
/// node than the one that started the sign-in, so memory of one node cannot hold the verifier.
/// The secret comes from the key file (every node has the same one), so the verifier never
/// leaves the servers and is never stored. A state names its start time, so a sign-in still
/// expires after ``lifetime``; the code it leads to is single use at the token endpoint.
struct PendingDemoLogins: Sendable {
    /// What the callback needs to finish one sign-in.
    struct Login: Sendable {
        /// The PKCE code verifier (RFC 7636).
        let codeVerifier: String
        /// The OpenID Connect nonce the ID token must carry.
        let nonce: String
    }

    /// How long a sign-in may take.
    static let lifetime: TimeInterval = 600

    /// The secret the verifiers and nonces are derived from.
    private let secret: [UInt8]

    /// Sign-ins whose values derive from `secret`.
    init(secret: [UInt8]) {
        self.secret = secret
    }

    /// Starts a sign-in and returns its state, verifier and nonce.
    func start(now: Date = Date()) -> (state: String, login: Login) {
        let state = "\(Int64(now.timeIntervalSince1970.rounded(.down))).\(SecureRandom.token())"
        return (state, login(for: state))
    }

    /// The sign-in for `state` if it is one this app started less than ``lifetime`` ago.
    func finish(state: String, now: Date = Date()) -> Login? {
        let parts = state.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let started = Int64(parts[0]), !parts[1].isEmpty else { return nil }
        let age = now.timeIntervalSince1970 - TimeInterval(started)
        guard age >= -5, age < Self.lifetime else { return nil }
        return login(for: state)
    }

    private func login(for state: String) -> Login {
        Login(codeVerifier: derived("verifier", state), nonce: derived("nonce", state))
    }

    /// base64url of HMAC-SHA256(secret, label:state): 43 characters, a valid PKCE verifier.
    private func derived(_ label: String, _ state: String) -> String {
        Base64URL.encode(HMAC.authenticationCode(for: Array("\(label):\(state)".utf8), key: secret))
    }
}
