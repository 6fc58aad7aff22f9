import PorticoHTTP

/// What the companion endpoints count: each brokered authorization by how it was answered,
/// and each consent decision.
///
/// The series and their label values are fixed when the provider starts, like
/// ``ProviderMetrics``' own, so nothing a client sends adds a series.
final class CompanionMetrics: Sendable {
    /// How `POST /oauth/companion/authorize` answered.
    enum Outcome: String, CaseIterable {
        /// A code at once (a confidential app the person had allowed).
        case code
        /// A consent ticket.
        case consent
        /// A "continue" ticket (a public app the person had allowed).
        case `continue`
        /// An OAuth error (bad request, `login_required`, `consent_required`, a refused token).
        case error
    }

    /// How `POST /oauth/companion/consent` ended.
    enum Decision: String, CaseIterable {
        case allow
        case deny
        /// The ticket was unknown, used, expired or another session's, or the request was bad.
        case refused
    }

    private let outcomes: [Outcome: MetricsCounter]
    private let decisions: [Decision: MetricsCounter]

    /// Registers the counters in `registry`.
    init(registry: MetricsRegistry) {
        var outcomes: [Outcome: MetricsCounter] = [:]
        for outcome in Outcome.allCases {
            outcomes[outcome] = registry.counter(
                "portico_companion_authorizations_total",
                help: "Authorization requests brokered by a companion, by how they were answered.",
                labels: ["outcome": outcome.rawValue])
        }
        self.outcomes = outcomes
        var decisions: [Decision: MetricsCounter] = [:]
        for decision in Decision.allCases {
            decisions[decision] = registry.counter(
                "portico_companion_consents_total", help: "Companion consent tickets answered, by decision.",
                labels: ["decision": decision.rawValue])
        }
        self.decisions = decisions
    }

    /// Counts one answer of the authorization endpoint.
    func record(_ outcome: Outcome) {
        outcomes[outcome]?.increment()
    }

    /// Counts one answer of the consent endpoint.
    func record(_ decision: Decision) {
        decisions[decision]?.increment()
    }
}
