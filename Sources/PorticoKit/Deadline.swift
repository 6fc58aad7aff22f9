import Foundation

/// Runs `operation` but gives up after `seconds`, throwing ``AuthorizationError/Code/timedOut``,
/// or as soon as the caller is cancelled, throwing ``AuthorizationError/Code/cancelled``.
///
/// Why not a task group: a group waits for all its children, so an operation stuck in a
/// request that ignores cancellation would hold every caller. Here the first of the three to
/// happen resumes the caller; the operation is then cancelled and left to end on its own.
func withDeadline<T: Sendable>(
    _ seconds: TimeInterval, _ what: String, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let race = DeadlineRace<T>()
    let work = Task {
        do { race.finish(.success(try await operation())) } catch { race.finish(.failure(error)) }
    }
    let timer = Task {
        try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
        let limit = String(format: "%g", seconds)
        if race.finish(.failure(AuthorizationError(.timedOut, "\(what) did not finish within \(limit) s"))) {
            work.cancel()
        }
    }
    race.onFinish { timer.cancel() }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            race.start(continuation)
        }
    } onCancel: {
        if race.finish(.failure(AuthorizationError.taskCancelled)) { work.cancel() }
    }
}

private final class DeadlineRace<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var result: Result<T, any Error>?
        var cleanup: (@Sendable () -> Void)?
    }

    private let state = LockedState(State())

    /// Resumes `continuation` with the result, now if there is one already.
    func start(_ continuation: CheckedContinuation<T, any Error>) {
        let early = state.withLock { current -> Result<T, any Error>? in
            if let result = current.result { return result }
            current.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    func onFinish(_ cleanup: @escaping @Sendable () -> Void) {
        let already = state.withLock { current -> Bool in
            if current.result != nil { return true }
            current.cleanup = cleanup
            return false
        }
        if already { cleanup() }
    }

    /// Settles the race with `result` unless it is settled; true when this call settled it.
    @discardableResult
    func finish(_ result: Result<T, any Error>) -> Bool {
        let taken = state.withLock { current -> (CheckedContinuation<T, any Error>?, (@Sendable () -> Void)?)? in
            guard current.result == nil else { return nil }
            current.result = result
            defer {
                current.continuation = nil
                current.cleanup = nil
            }
            return (current.continuation, current.cleanup)
        }
        guard let taken else { return false }
        taken.0?.resume(with: result)
        taken.1?()
        return true
    }
}
