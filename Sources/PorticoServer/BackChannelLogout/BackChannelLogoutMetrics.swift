import PorticoHTTP

/// What back-channel logout delivery reports in `/metrics`: messages delivered, attempts that
/// failed and will be retried, messages given up, and the messages pending now.
final class BackChannelLogoutMetrics: Sendable {
    /// Logout tokens a client's backend accepted (2xx).
    let delivered: MetricsCounter
    /// Attempts that failed (no answer, or not 2xx) and were scheduled again.
    let retried: MetricsCounter
    /// Messages given up: still failing after the retry window, or their client is gone.
    let failed: MetricsCounter
    /// Messages waiting for delivery, as of the deliverer's latest look.
    let pending: MetricsGauge

    /// Registers the series in `registry`.
    init(registry: MetricsRegistry) {
        delivered = registry.counter(
            "portico_backchannel_logout_delivered_total",
            help: "Back-channel logout tokens accepted by a client's backend.")
        retried = registry.counter(
            "portico_backchannel_logout_retries_total",
            help: "Back-channel logout attempts that failed and were scheduled again.")
        failed = registry.counter(
            "portico_backchannel_logout_failed_total",
            help: "Back-channel logout messages given up (retry window over, or the client is gone).")
        pending = registry.gauge(
            "portico_backchannel_logout_pending", help: "Back-channel logout messages waiting for delivery.")
    }
}
