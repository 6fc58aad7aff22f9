import Synchronization

/// Requests held on waiting connections (see ``ClientLimits``): each until its connection is
/// served or its hold ends, whichever comes first; then the release given to ``start(release:)``
/// resumes it.
///
/// A held request is a suspended connection and an entry here: no thread, no timer of its own.
/// One timer checks every entry a few times per hold.
final class HeldRequests: Sendable {
    private struct Entry {
        let exchange: AsyncExchange
        let until: UInt64
    }

    private let holdNanoseconds: UInt64
    /// Held requests by their connection (its pointer's bits).
    private let entries = Mutex<[UInt: Entry]>([:])
    private let release = Mutex<(@Sendable (AsyncExchange) -> Void)?>(nil)
    private let timer = Mutex<RepeatingTimer?>(nil)

    /// Holds of `hold` (at least 10 ms).
    init(hold: Duration) {
        holdNanoseconds = RepeatingTimer.nanoseconds(hold)
    }

    /// Starts the timer; `release` resumes a request whose hold ends. Given after the
    /// owner is whole, since it is what the owner does.
    func start(release: @escaping @Sendable (AsyncExchange) -> Void) {
        self.release.withLock { $0 = release }
        let timer = RepeatingTimer(
            label: "portico.held-requests", quarterOf: holdNanoseconds, longest: 250_000_000
        ) { [weak self] in self?.releaseExpired() }
        self.timer.withLock { $0 = timer }
        timer.start()
    }

    /// Stops the timer; what is still held is left to shutdown's resume of every suspension.
    func stop() {
        timer.withLock { $0?.cancel() }
    }

    deinit {
        timer.withLock { $0?.cancel() }
    }

    /// Holds `exchange`, whose connection is already suspended.
    func hold(_ exchange: AsyncExchange) {
        let entry = Entry(exchange: exchange, until: RequestLogger.now() &+ holdNanoseconds)
        entries.withLock { $0[key(exchange.connection.pointer)] = entry }
    }

    /// Ends the hold on `connection`'s request now, if one is held: its connection is served.
    func releaseNow(_ connection: OpaquePointer) {
        guard let entry = entries.withLock({ $0.removeValue(forKey: key(connection)) }) else { return }
        release.withLock { $0 }?(entry.exchange)
    }

    private func releaseExpired() {
        let now = RequestLogger.now()
        let expired = entries.withLock { entries -> [AsyncExchange] in
            let due = entries.filter { $0.value.until <= now }
            for connection in due.keys { entries.removeValue(forKey: connection) }
            return due.values.map(\.exchange)
        }
        guard !expired.isEmpty, let release = release.withLock({ $0 }) else { return }
        for exchange in expired { release(exchange) }
    }

    private func key(_ connection: OpaquePointer) -> UInt {
        UInt(bitPattern: connection)
    }
}
