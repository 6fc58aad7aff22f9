import PorticoHTTP

/// What the sign-up pages count: each `POST /signup` by how it ended, each confirmation, and
/// the Argon2id hashes sign-up computed.
///
/// The hash counter is there because a sign-up's cost is its hash: an operator (and a test) can
/// see that throttled and malformed attempts cost none. Series and label values are fixed at
/// start-up, like ``ProviderMetrics``' own.
final class SignUpMetrics: Sendable {
    /// How `POST /signup` ended.
    enum Result: String, CaseIterable {
        /// A new address: a pending sign-up was stored and its link mailed.
        case mailed
        /// An address that has an account: the owner was mailed a notice (answered alike).
        case existing
        /// Refused by a throttle before any hash.
        case throttled
        /// A field had a problem; the form was shown again.
        case invalid
        /// Every turn at the password gate was taken (a flood): 503, nothing hashed or stored.
        case shed
        /// A mailed link was followed and made the account.
        case confirmed
    }

    private let results: [Result: MetricsCounter]
    private let hashes: MetricsCounter

    /// Registers the counters in `registry`.
    init(registry: MetricsRegistry) {
        var results: [Result: MetricsCounter] = [:]
        for result in Result.allCases {
            results[result] = registry.counter(
                "portico_sign_ups_total", help: "Sign-up attempts at /signup and confirmations, by result.",
                labels: ["result": result.rawValue])
        }
        self.results = results
        hashes = registry.counter(
            "portico_sign_up_password_hashes_total", help: "Argon2id password hashes computed for sign-ups.")
    }

    /// Counts one sign-up outcome.
    func record(_ result: Result) {
        results[result]?.increment()
    }

    /// Counts one password hash.
    func recordHash() {
        hashes.increment()
    }
}
