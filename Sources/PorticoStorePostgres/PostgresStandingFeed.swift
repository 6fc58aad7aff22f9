import PorticoStore
import PorticoStoreSQL
import Synchronization

/// The store's ``StandingChangeFeed``: a generation moved by every `portico_standing`
/// notification that reaches this process, on the listener's connection or on a pooled one.
///
/// One atomic word holds both halves, so that a reader sees them together: the generation in
/// the upper bits and, in the lowest, whether the listener is listening. Every change of either
/// moves the generation, so an answer read while the feed was down, or before it went down, can
/// never match a later generation.
final class PostgresStandingFeed: Sendable {
    /// The channel the schema's triggers notify (version 13).
    static let channel = "portico_standing"

    private let state = Atomic<UInt64>(0)
    private let started = Atomic<Bool>(false)

    /// Whether ``start()`` was called: pooled connections listen from then on.
    var isStarted: Bool { started.load(ordering: .acquiring) }

    /// The generation, or nil while the listener is not listening.
    var generation: UInt64? {
        let word = state.load(ordering: .acquiring)
        return word & 1 == 1 ? word >> 1 : nil
    }

    /// Marks the feed started; true only for the first call.
    func start() -> Bool {
        started.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }

    /// A notification arrived: whatever was read before may be stale.
    func changed() {
        state.wrappingAdd(2, ordering: .acquiringAndReleasing)
    }

    /// The listener listens: every later commit will be reported.
    func wentLive() {
        state.wrappingAdd(2, ordering: .acquiringAndReleasing)
        state.bitwiseOr(1, ordering: .acquiringAndReleasing)
    }

    /// The listener lost its connection: commits may go unreported until it listens again.
    func wentDown() {
        state.bitwiseAnd(~UInt64(1), ordering: .acquiringAndReleasing)
        state.wrappingAdd(2, ordering: .acquiringAndReleasing)
    }
}
