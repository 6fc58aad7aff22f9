import PorticoHTTP
import PorticoStore

/// What the provider counts for operators: tokens issued by grant, token-endpoint errors by
/// OAuth error code, sign-ins by result, refresh-token reuse, and the process gauges.
///
/// Every series is created here, at start-up, with a fixed set of label values, so the number
/// of series never depends on what clients send (an unknown grant or error code is counted as
/// `other`), and recording is one relaxed atomic add. The counters always count; only
/// `portico serve --metrics` exposes them (see ``MetricsEndpoint``).
final class ProviderMetrics: Sendable {
    /// How a password sign-in ended.
    enum SignInResult: String, CaseIterable {
        case success
        /// Wrong address or password, or a disabled account (which answers the same).
        case failure
        /// Refused by ``AttemptThrottle`` before the password was checked.
        case throttled
        /// Turned away by ``PasswordCheckGate`` (too many checks at once), neither counted nor
        /// checked.
        case shed
    }

    /// The `grant` label of every grant the token endpoint implements (``TokenGrantRegistry``).
    static var grantLabels: [String] {
        TokenGrantRegistry.grants.map { $0.metricsLabel }
    }
    /// The error codes the token endpoint answers with: RFC 6749 §5.2's, those of each grant
    /// (``TokenGrant/errorCodes``, such as RFC 8628 §3.5's), and `temporarily_unavailable` /
    /// `server_error` for our own failures.
    static var tokenErrorCodes: [String] {
        var codes = [
            "invalid_request", "invalid_client", "invalid_grant", "unauthorized_client", "unsupported_grant_type",
            "invalid_scope",
        ]
        for code in TokenGrantRegistry.grants.flatMap({ $0.errorCodes }) where !codes.contains(code) {
            codes.append(code)
        }
        return codes + ["temporarily_unavailable", "server_error"]
    }

    /// The registry these metrics live in; `/metrics` renders it.
    let registry: MetricsRegistry
    private let tokensIssued: [String: MetricsCounter]
    private let tokenErrors: [String: MetricsCounter]
    private let otherTokenError: MetricsCounter
    private let signIns: [SignInResult: MetricsCounter]
    private let refreshReuse: MetricsCounter

    /// Registers the provider's metrics (and the process gauges) in `registry`.
    init(registry: MetricsRegistry = MetricsRegistry()) {
        self.registry = registry
        var issued: [String: MetricsCounter] = [:]
        for label in Set(Self.grantLabels).sorted() {
            issued[label] = registry.counter(
                "portico_tokens_issued_total", help: "Successful token responses, by grant type.",
                labels: ["grant": label])
        }
        tokensIssued = issued
        let errorHelp = "Token endpoint error responses, by OAuth error code."
        var errors: [String: MetricsCounter] = [:]
        for code in Self.tokenErrorCodes {
            errors[code] = registry.counter("portico_token_errors_total", help: errorHelp, labels: ["error": code])
        }
        tokenErrors = errors
        otherTokenError = registry.counter("portico_token_errors_total", help: errorHelp, labels: ["error": "other"])
        var signIns: [SignInResult: MetricsCounter] = [:]
        for result in SignInResult.allCases {
            signIns[result] = registry.counter(
                "portico_sign_ins_total", help: "Password sign-ins at /login, by result.",
                labels: ["result": result.rawValue])
        }
        self.signIns = signIns
        refreshReuse = registry.counter(
            "portico_refresh_token_reuse_detected_total",
            help: "Rotated refresh tokens presented again after the grace period; each revoked its grant.")
        ProcessMetrics.register(in: registry)
    }

    /// Counts a successful token response of the grant labelled `label` (its
    /// ``TokenGrant/metricsLabel``).
    func recordTokenIssued(label: String) {
        tokensIssued[label]?.increment()
    }

    /// Counts a token-endpoint failure by the OAuth error code it is answered with.
    func recordTokenError(_ error: any Error) {
        let code: String
        switch error {
        case let error as OAuthError: code = error.code
        case let error as StoreError:
            if error.isTemporary { code = "temporarily_unavailable" } else { code = "server_error" }
        default: code = "server_error"
        }
        (tokenErrors[code] ?? otherTokenError).increment()
    }

    /// Counts a password sign-in.
    func recordSignIn(_ result: SignInResult) {
        signIns[result]?.increment()
    }

    /// Counts a detected refresh-token reuse (its family was revoked).
    func recordRefreshReuse() {
        refreshReuse.increment()
    }
}
