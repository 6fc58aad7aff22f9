import Synchronization

/// A Prometheus histogram of durations in seconds, with buckets fixed when it is made.
///
/// Observing adds one to a bucket and the nanoseconds to the sum: two relaxed atomic adds, no
/// lock, no floating point. Buckets are counted one by one and made cumulative (`le`) only when
/// a scrape renders them, and `_count` is their total, so `_count` always equals the `+Inf`
/// bucket in one scrape.
public final class MetricsHistogram: Sendable {
    /// One atomic count; an `Atomic` needs a stable address, which a class gives it.
    final class Cell: Sendable {
        let value = Atomic<UInt64>(0)
    }

    /// The upper bounds of the buckets, in seconds, ascending; `+Inf` is implied.
    public let upperBounds: [Double]
    private let boundsNanoseconds: [UInt64]
    /// One per bound, then one for everything above the last.
    private let buckets: [Cell]
    private let sumNanoseconds = Atomic<UInt64>(0)

    /// Creates a histogram with `upperBounds` in seconds (sorted, duplicates and non-positive
    /// or non-finite bounds dropped); one not made by a registry is never exported.
    public init(upperBounds: [Double]) {
        let bounds = Array(Set(upperBounds.filter { $0.isFinite && $0 > 0 })).sorted()
        self.upperBounds = bounds
        boundsNanoseconds = bounds.map { UInt64(($0 * 1e9).rounded()) }
        buckets = (0...bounds.count).map { _ in Cell() }
    }

    /// Records a duration.
    public func observe(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else { return observe(nanoseconds: 0) }
        let whole = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        observe(nanoseconds: whole.overflow ? UInt64.max : whole.partialValue &+ UInt64(attoseconds / 1_000_000_000))
    }

    /// Records a duration given in nanoseconds (what a monotonic clock difference gives).
    @inline(__always)
    public func observe(nanoseconds: UInt64) {
        var index = 0
        while index < boundsNanoseconds.count && nanoseconds > boundsNanoseconds[index] { index += 1 }
        buckets[index].value.wrappingAdd(1, ordering: .relaxed)
        sumNanoseconds.wrappingAdd(nanoseconds, ordering: .relaxed)
    }

    /// What a scrape reads: cumulative counts per bound (the last is `+Inf`, the total) and
    /// the sum in seconds.
    struct Snapshot {
        var cumulativeCounts: [UInt64]
        var sumSeconds: Double
        var count: UInt64 { cumulativeCounts.last ?? 0 }
    }

    func snapshot() -> Snapshot {
        var running: UInt64 = 0
        var cumulative: [UInt64] = []
        cumulative.reserveCapacity(buckets.count)
        for bucket in buckets {
            running &+= bucket.value.load(ordering: .relaxed)
            cumulative.append(running)
        }
        return Snapshot(
            cumulativeCounts: cumulative, sumSeconds: Double(sumNanoseconds.load(ordering: .relaxed)) / 1e9)
    }

    /// The number of observations so far.
    public var count: UInt64 { snapshot().count }
}
