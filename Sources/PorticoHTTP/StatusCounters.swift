import Synchronization

/// Counts per HTTP status code for one route and method, without a lock and without knowing
/// the codes in advance.
///
/// Each slot is one atomic word holding a status (top 10 bits) and its count (the rest). A
/// request finds its status among the slots claimed so far (usually the first: most answers of
/// a route share one status) and adds one to that word; a status seen for the first time claims
/// the next empty slot with a compare-and-swap. Slots are claimed in order, so a reader stops at
/// the first empty one. A route that answers with more distinct codes than there are slots
/// counts the rest under `other`, which keeps the number of series bounded whatever handlers do.
final class StatusCounters: Sendable {
    /// Distinct codes tracked per route and method before `other`.
    static let slotCount = 8
    private static let countBits: UInt64 = 54
    private static let countMask: UInt64 = (1 << countBits) - 1

    private let slots: [MetricsHistogram.Cell]
    private let overflow = Atomic<UInt64>(0)

    init() {
        slots = (0..<Self.slotCount).map { _ in MetricsHistogram.Cell() }
    }

    /// Adds one answer with `status` (clamped to 0...999, as libmicrohttpd only sends those).
    @inline(__always)
    func increment(_ status: Int) {
        let key = UInt64(min(max(status, 0), 999))
        for slot in slots {
            var word = slot.value.load(ordering: .relaxed)
            if word == 0 {
                let claimed = slot.value.compareExchange(
                    expected: 0, desired: key << Self.countBits | 1, ordering: .relaxed)
                if claimed.exchanged { return }
                word = claimed.original
            }
            if word >> Self.countBits == key {
                slot.value.wrappingAdd(1, ordering: .relaxed)
                return
            }
        }
        overflow.wrappingAdd(1, ordering: .relaxed)
    }

    /// The counts by status code, ascending, then the count beyond the slots (0 when none).
    func snapshot() -> (byStatus: [(status: Int, count: UInt64)], other: UInt64) {
        var counts: [(status: Int, count: UInt64)] = []
        for slot in slots {
            let word = slot.value.load(ordering: .relaxed)
            guard word != 0 else { break }
            counts.append((Int(word >> Self.countBits), word & Self.countMask))
        }
        counts.sort { $0.status < $1.status }
        return (counts, overflow.load(ordering: .relaxed))
    }

    /// Every answer counted.
    var total: UInt64 {
        let (counts, other) = snapshot()
        return counts.reduce(other) { $0 &+ $1.count }
    }
}
