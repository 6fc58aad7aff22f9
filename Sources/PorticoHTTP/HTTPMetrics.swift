/// The instruments of one `HTTPServer`: requests by route pattern, method and status, their
/// durations, and the connections and requests open at scrape time.
///
/// Series are labelled with the route *pattern* the router matched (`/clients/:id`), never the
/// raw path, so their number is fixed by the routes registered, not by what clients send. All
/// series are created when the server starts (see `RouteTable.instrument`); a request then costs
/// one clock read and three relaxed atomic adds.
final class HTTPMetrics: Sendable {
    /// The label of requests no route's handler answered: no route, a method the route does
    /// not have (405), a badly encoded path (400), or a body over the limit (413).
    static let unmatchedRoute = "unmatched"
    /// Bucket bounds in seconds: from a constant answer (tens of microseconds) through a
    /// password check (tens of milliseconds) to a stalled database.
    static let durationBuckets: [Double] = [0.0005, 0.001, 0.005, 0.025, 0.1, 0.5, 2.5]
    static let requestsName = "portico_http_requests_total"
    static let durationName = "portico_http_request_duration_seconds"
    /// The methods the unmatched series tell apart; any other is counted as `other`, since the
    /// method of an unrouted request is whatever the client wrote.
    static let knownMethods: [HTTPMethod] = [.get, .head, .post, .put, .delete, .patch, .options]

    let registry: MetricsRegistry
    let unmatched: RouteMetrics

    init(registry: MetricsRegistry) {
        self.registry = registry
        let methods = Self.knownMethods + [HTTPMethod(rawValue: "other")]
        unmatched = RouteMetrics(registry: registry, route: Self.unmatchedRoute, methods: methods)
    }

    /// The series of `route` for each of `methods`.
    func route(_ route: String, methods: [HTTPMethod]) -> RouteMetrics {
        RouteMetrics(registry: registry, route: route, methods: methods)
    }

    /// Counts one answered request.
    @inline(__always)
    func record(route: RouteMetrics?, method: String, status: Int, nanoseconds: UInt64) {
        let series =
            route?.series(for: method) ?? unmatched.series(for: method) ?? unmatched.series[unmatched.series.count - 1]
        series.statuses.increment(status)
        series.duration.observe(nanoseconds: nanoseconds)
    }

    /// Registers the gauges read at scrape time from the running server.
    func registerGauges(connections: @escaping @Sendable () -> Double?, inFlight: @escaping @Sendable () -> Double?) {
        registry.gauge(
            "portico_http_connections_open", help: "HTTP connections currently open.", sample: connections)
        registry.gauge(
            "portico_http_requests_in_flight", help: "HTTP requests received and not yet answered.",
            sample: inFlight)
    }
}

/// The series of one route pattern, one set per method it answers.
final class RouteMetrics: Sendable {
    /// The counters and histogram of one route and method.
    final class Series: Sendable {
        let method: String
        let statuses: StatusCounters
        let duration: MetricsHistogram

        init(registry: MetricsRegistry, route: String, method: String) {
            self.method = method
            let labels = [MetricLabel(name: "route", value: route), MetricLabel(name: "method", value: method)]
            statuses = registry.statusCounters(
                HTTPMetrics.requestsName, help: "HTTP requests answered, by route pattern, method and status.",
                labels: labels)
            let help = "Time from receiving an HTTP request to queueing its answer, by route pattern and method."
            duration = registry.histogram(
                HTTPMetrics.durationName, help: help,
                labels: ["route": route, "method": method], upperBounds: HTTPMetrics.durationBuckets)
        }
    }

    let route: String
    let series: [Series]

    init(registry: MetricsRegistry, route: String, methods: [HTTPMethod]) {
        self.route = route
        series = methods.map { Series(registry: registry, route: route, method: $0.rawValue) }
    }

    /// The series for `method`; nil when the route was not registered for it.
    @inline(__always)
    func series(for method: String) -> Series? {
        for candidate in series where candidate.method == method { return candidate }
        return nil
    }
}
