import PorticoHTTP
import Synchronization

/// What Shared Signals delivery reports in `/metrics`, per stream (label `stream`, the client
/// id: one series per receiver, as bounded as the apps): SETs delivered (pushed and accepted,
/// or polled and acknowledged), given up (rejected by the receiver, or the retry window over),
/// and waiting now.
final class SharedSignalsMetrics: Sendable {
    private let registry: MetricsRegistry

    /// Registers the series in `registry` as streams appear.
    init(registry: MetricsRegistry) {
        self.registry = registry
    }

    /// SETs a receiver took.
    func delivered(stream: String) -> MetricsCounter {
        registry.counter(
            "portico_ssf_delivered_total", help: "Security Event Tokens a receiver accepted or acknowledged.",
            labels: ["stream": stream])
    }

    /// SETs given up.
    func failed(stream: String) -> MetricsCounter {
        registry.counter(
            "portico_ssf_failed_total",
            help: "Security Event Tokens given up: rejected by the receiver, or still failing after the retry window.",
            labels: ["stream": stream])
    }

    /// SETs waiting.
    func pending(stream: String) -> MetricsGauge {
        registry.gauge(
            "portico_ssf_pending", help: "Security Event Tokens waiting for delivery or acknowledgement.",
            labels: ["stream": stream])
    }
}
