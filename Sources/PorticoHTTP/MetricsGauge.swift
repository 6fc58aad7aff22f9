import Synchronization

/// A Prometheus gauge that the code sets: a number that goes up and down.
///
/// Values that can be read when a scrape comes (memory, open files) are better registered with
/// ``MetricsRegistry/gauge(_:help:labels:sample:)``, which costs nothing between scrapes.
public final class MetricsGauge: Sendable {
    private let bits = Atomic<UInt64>(0)

    /// Creates a gauge at zero; one not made by a registry is never exported.
    public init() {}

    /// Replaces the value.
    public func set(_ value: Double) {
        bits.store(value.bitPattern, ordering: .relaxed)
    }

    /// The current value.
    public var value: Double {
        Double(bitPattern: bits.load(ordering: .relaxed))
    }
}
