import Foundation
import Synchronization

/// A clock the test moves by hand: real time plus whatever ``advance(by:)`` added.
///
/// Why real time underneath: the HTTP server, the SQLite busy timeout and the background
/// purger keep running on the system clock, so a clock that started in 1970 would make every
/// record look decades old to them.
public final class TestClock: Sendable {
    /// What ``advance(by:)`` added, and the instant ``hold()`` stopped the clock at, if it did.
    private let state = Mutex<(offset: TimeInterval, held: Date?)>((0, nil))

    /// A clock that reads the real time until it is advanced.
    public init() {}

    /// Real time plus everything `advance(by:)` added; while held, the instant it was held at
    /// (plus any later advance).
    public var now: Date {
        state.withLock { $0.held ?? Date().addingTimeInterval($0.offset) }
    }

    /// Moves the clock forward (or back, with a negative interval).
    public func advance(by seconds: TimeInterval) {
        state.withLock {
            $0.offset += seconds
            $0.held = $0.held?.addingTimeInterval(seconds)
        }
    }

    /// Stops the clock where it is, so that everything a test does next happens in the same
    /// instant (the same whole second, as the store counts time), until ``resume()``.
    public func hold() {
        state.withLock { $0.held = Date().addingTimeInterval($0.offset) }
    }

    /// Lets the clock run again from real time plus the offset.
    public func resume() {
        state.withLock { $0.held = nil }
    }
}
