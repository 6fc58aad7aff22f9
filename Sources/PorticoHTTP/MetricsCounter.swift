import Synchronization

/// A Prometheus counter: a number that only goes up, such as requests served or tokens issued.
///
/// One relaxed atomic add per increment and no lock, so counting on the request path costs a
/// few nanoseconds; get one from ``MetricsRegistry/counter(_:help:labels:)`` once, at start-up,
/// and keep it rather than looking it up per event.
public final class MetricsCounter: Sendable {
    private let count = Atomic<UInt64>(0)

    /// Creates a counter at zero; one not made by a registry is never exported.
    public init() {}

    /// Adds one.
    @inline(__always)
    public func increment() {
        count.wrappingAdd(1, ordering: .relaxed)
    }

    /// Adds `amount`.
    @inline(__always)
    public func increment(by amount: UInt64) {
        count.wrappingAdd(amount, ordering: .relaxed)
    }

    /// The current count, as a scrape reads it.
    public var value: UInt64 {
        count.load(ordering: .relaxed)
    }
}
