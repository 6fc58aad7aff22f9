import Foundation
import Synchronization

/// A clock the test moves by hand: real time plus whatever ``advance(by:)`` added.
///
/// Why real time underneath: the HTTP server, the SQLite busy timeout and the background
/// purger keep running on the system clock, so a clock that started in 1970 would make every
/// record look decades old to them.
public final class TestClock: Sendable {
    private let offset = Mutex<TimeInterval>(0)

    /// A clock that reads the real time until it is advanced.
    public init() {}

    /// Real time plus everything `advance(by:)` added.
    public var now: Date { Date().addingTimeInterval(offset.withLock { $0 }) }

    /// Moves the clock forward (or back, with a negative interval).
    public func advance(by seconds: TimeInterval) {
        offset.withLock { $0 += seconds }
    }
}
