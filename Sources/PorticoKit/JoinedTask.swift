/// `task`'s result for one of several callers sharing it, or `CancellationError` as soon as
/// this caller is cancelled; `task` itself goes on, since others may still wait for it.
///
/// `await task.value` would not do: a caller waiting on an unstructured task is not woken by
/// its own cancellation.
func joinedValue<T: Sendable>(of task: Task<T, any Error>) async throws -> T {
    let join = Join<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            join.install(continuation)
            Task { join.finish(await task.result) }
        }
    } onCancel: {
        join.finish(.failure(CancellationError()))
    }
}

/// One caller's continuation, resumed once by whichever comes first: the result or the cancel.
private final class Join<T: Sendable>: Sendable {
    private let state = LockedState<(continuation: CheckedContinuation<T, any Error>?, early: Result<T, any Error>?)>(
        (nil, nil))

    func install(_ continuation: CheckedContinuation<T, any Error>) {
        let early = state.withLock { current -> Result<T, any Error>? in
            if current.early == nil { current.continuation = continuation }
            return current.early
        }
        if let early { continuation.resume(with: early) }
    }

    func finish(_ result: Result<T, any Error>) {
        let waiting = state.withLock { current -> CheckedContinuation<T, any Error>? in
            guard let continuation = current.continuation else {
                if current.early == nil { current.early = result }
                return nil
            }
            current.continuation = nil
            current.early = result
            return continuation
        }
        waiting?.resume(with: result)
    }
}
