import Foundation

/// Runs `operation` but gives up after `seconds`, throwing ``AuthorizationError/Code/timedOut``.
///
/// Why not a task group: a group waits for all its children, so an operation stuck in a
/// request that ignores cancellation would hold every caller. Here the first of the two to
/// finish resumes the caller; the other is cancelled and left to end on its own.
func withDeadline<T: Sendable>(
    _ seconds: TimeInterval, _ what: String, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let race = DeadlineRace<T>()
    return try await withCheckedThrowingContinuation { continuation in
        race.start(continuation)
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
    }
}

private final class DeadlineRace<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var finished = false
        var cleanup: (@Sendable () -> Void)?
    }

    private let state = LockedState(State())

    func start(_ continuation: CheckedContinuation<T, any Error>) {
        state.withLock { $0.continuation = continuation }
    }

    func onFinish(_ cleanup: @escaping @Sendable () -> Void) {
        let already = state.withLock { current -> Bool in
            if current.finished { return true }
            current.cleanup = cleanup
            return false
        }
        if already { cleanup() }
    }

    @discardableResult
    func finish(_ result: Result<T, any Error>) -> Bool {
        let taken = state.withLock { current -> (CheckedContinuation<T, any Error>?, (@Sendable () -> Void)?)? in
            guard !current.finished else { return nil }
            current.finished = true
            defer { current.continuation = nil }
            return (current.continuation, current.cleanup)
        }
        guard let taken else { return false }
        taken.0?.resume(with: result)
        taken.1?()
        return true
    }
}
