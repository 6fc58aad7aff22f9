import Dispatch

/// A timer that runs a handler every so often on a queue of its own: what the server's
/// sweepers (``RequestDeadlines``, ``HeldRequests``) check their entries with.
///
/// `@unchecked Sendable`: a dispatch source may be resumed and cancelled from any thread.
struct RepeatingTimer: @unchecked Sendable {
    private let source: any DispatchSourceTimer

    /// A timer named `label` that calls `handler` every `period` (about a quarter of `span`,
    /// clamped to 5 ms … `longest`); it starts only at ``start()``.
    init(label: String, quarterOf span: UInt64, longest: UInt64, _ handler: @escaping @Sendable () -> Void) {
        let source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: label))
        let interval = Int(min(longest, max(5_000_000, span / 4)))
        source.schedule(deadline: .now() + .nanoseconds(interval), repeating: .nanoseconds(interval))
        source.setEventHandler(handler: handler)
        self.source = source
    }

    /// Starts the calls; once only.
    func start() {
        source.resume()
    }

    /// Stops the calls; safe more than once, and from any thread.
    func cancel() {
        source.cancel()
    }

    /// `duration` in nanoseconds, at least 10 ms: the shortest span a sweeper keeps.
    static func nanoseconds(_ duration: Duration) -> UInt64 {
        UInt64(
            max(
                10_000_000,
                duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000))
    }
}
