import Synchronization

/// The metrics of one process, rendered in the Prometheus text exposition format 0.0.4 for a
/// `/metrics` endpoint.
///
/// Registering takes a lock and happens at start-up; the returned counter, gauge or histogram
/// is then updated with relaxed atomics only, so instrumenting a hot path costs a few
/// nanoseconds and never waits for a scrape. Values that exist anyway (open files, memory,
/// connections) are registered as *sampled* and read only when a scrape renders them.
///
/// Names follow Prometheus practice: `snake_case`, the unit in the name (`_seconds`, `_bytes`),
/// `_total` for counters. Each series is one set of labels; keep label values bounded (a route
/// pattern, never a raw path), since every distinct value is a series for ever. Registering the
/// same name and labels again returns the existing metric.
///
/// ```swift
/// let registry = MetricsRegistry()
/// let issued = registry.counter("app_tokens_issued_total", help: "Tokens issued.", labels: ["grant": "code"])
/// issued.increment()
/// router.get("/metrics") { _ in Response(headers: ["Content-Type": MetricsRegistry.contentType],
///                                         body: Array(registry.render().utf8)) }
/// ```
public final class MetricsRegistry: Sendable {
    /// The `Content-Type` of ``render()``'s text (Prometheus text format 0.0.4).
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private let families = Mutex<[MetricFamily]>([])

    /// Creates an empty registry.
    public init() {}

    /// A counter, created on first use of `name` with these `labels`.
    public func counter(_ name: String, help: String, labels: KeyValuePairs<String, String> = [:]) -> MetricsCounter {
        let made = MetricsCounter()
        guard case .counter(let counter) = register(name, help: help, kind: .counter, labels: labels, .counter(made))
        else { return made }
        return counter
    }

    /// A counter whose value is read from `sample` at each scrape (for example CPU seconds);
    /// a nil sample leaves the line out of that scrape.
    public func counter(
        _ name: String, help: String, labels: KeyValuePairs<String, String> = [:],
        sample: @escaping @Sendable () -> Double?
    ) {
        _ = register(name, help: help, kind: .counter, labels: labels, .sampled(sample), replacing: true)
    }

    /// A gauge the code sets, created on first use of `name` with these `labels`.
    public func gauge(_ name: String, help: String, labels: KeyValuePairs<String, String> = [:]) -> MetricsGauge {
        let made = MetricsGauge()
        guard case .gauge(let gauge) = register(name, help: help, kind: .gauge, labels: labels, .gauge(made))
        else { return made }
        return gauge
    }

    /// A gauge read from `sample` at each scrape; a nil sample leaves the line out of that
    /// scrape (for example when `/proc` is not there).
    public func gauge(
        _ name: String, help: String, labels: KeyValuePairs<String, String> = [:],
        sample: @escaping @Sendable () -> Double?
    ) {
        _ = register(name, help: help, kind: .gauge, labels: labels, .sampled(sample), replacing: true)
    }

    /// A duration histogram with buckets at `upperBounds` seconds (`+Inf` is added), created on
    /// first use of `name` with these `labels`.
    public func histogram(
        _ name: String, help: String, labels: KeyValuePairs<String, String> = [:], upperBounds: [Double]
    ) -> MetricsHistogram {
        let made = MetricsHistogram(upperBounds: upperBounds)
        guard
            case .histogram(let histogram) = register(
                name, help: help, kind: .histogram, labels: labels, .histogram(made))
        else { return made }
        return histogram
    }

    /// Counts by HTTP status under `name` with `labels` plus a `status` label (see
    /// `StatusCounters`); what the HTTP server registers per route.
    func statusCounters(_ name: String, help: String, labels: [MetricLabel]) -> StatusCounters {
        let made = StatusCounters()
        guard case .statuses(let counters) = register(name, help: help, kind: .counter, labels: labels, .statuses(made))
        else { return made }
        return counters
    }

    /// Every metric as Prometheus text (format 0.0.4): per family a `# HELP` and a `# TYPE`
    /// line, then its samples; families in registration order.
    public func render() -> String {
        // Copy the families (class references, cheap) and read values outside the lock, so a
        // sampled gauge that reads a file never holds up registration.
        let snapshot = families.withLock { $0 }
        var text = ""
        text.reserveCapacity(snapshot.count * 160)
        for family in snapshot {
            MetricsText.append(family, to: &text)
        }
        return text
    }

    // MARK: - Registration

    private func register(
        _ name: String, help: String, kind: MetricKind, labels: KeyValuePairs<String, String>, _ series: MetricSeries,
        replacing: Bool = false
    ) -> MetricSeries? {
        register(
            name, help: help, kind: kind, labels: labels.map { MetricLabel(name: $0.key, value: $0.value) }, series,
            replacing: replacing)
    }

    private func register(
        _ name: String, help: String, kind: MetricKind, labels: [MetricLabel], _ series: MetricSeries,
        replacing: Bool = false
    ) -> MetricSeries? {
        guard MetricsText.isValidMetricName(name),
            labels.allSatisfy({ MetricsText.isValidLabelName($0.name) && $0.name != "le" })
        else {
            Self.complain("invalid metric or label name for \(name); not exported")
            return nil
        }
        return families.withLock { families in
            guard let index = families.firstIndex(where: { $0.name == name }) else {
                families.append(MetricFamily(name: name, help: help, kind: kind, entries: [(labels, series)]))
                return series
            }
            guard families[index].kind == kind else {
                Self.complain("metric \(name) registered again as another type; not exported")
                return nil
            }
            if let existing = families[index].entries.firstIndex(where: { $0.labels == labels }) {
                if replacing { families[index].entries[existing].series = series }
                return families[index].entries[existing].series
            }
            families[index].entries.append((labels, series))
            return series
        }
    }

    /// A programming mistake in registration is logged, never fatal: metrics must not stop
    /// the server.
    private static func complain(_ message: String) {
        var line: [UInt8] = Array(#"{"level":"error","component":"metrics","message":"#.utf8)
        RequestLogger.appendString(message, to: &line)
        line.append(contentsOf: "}\n".utf8)
        RequestLogger.writeLine(line)
    }
}

/// The Prometheus metric types Portico exports.
enum MetricKind: String, Sendable {
    case counter
    case gauge
    case histogram
}

/// One label of a series.
struct MetricLabel: Sendable, Equatable {
    let name: String
    let value: String
}

/// Where a series' value comes from.
enum MetricSeries: Sendable {
    case counter(MetricsCounter)
    case gauge(MetricsGauge)
    case sampled(@Sendable () -> Double?)
    case histogram(MetricsHistogram)
    case statuses(StatusCounters)
}

/// All series of one metric name; rendered together, as the format requires.
struct MetricFamily: Sendable {
    let name: String
    let help: String
    let kind: MetricKind
    var entries: [(labels: [MetricLabel], series: MetricSeries)]
}
