/// Makes concurrent refreshes of one grant into one request.
///
/// A refresh token is single use (Portico rotates it, and a reused one revokes the family), so
/// a hundred callers seeing an expired access token must share one refresh. The key is the
/// store's coordination key, the provider and the client, so managers that share one store
/// share its refresh too.
///
/// A refresh stays the one refresh of its key until its request has ended, whoever started it
/// and however long its callers waited: its request is bounded by its own timeout, well under
/// the provider's reuse grace, so a refresh after it never races it with the same token.
/// A caller that is cancelled (or whose own deadline passes) stops waiting at once; the shared
/// refresh goes on for the others (cancelling it could lose a rotated token).
actor RefreshCoordinator {
    static let shared = RefreshCoordinator()

    private var inFlight: [String: (id: Int, task: Task<StoredGrant, any Error>, callers: Int)] = [:]
    private var nextID = 0

    /// The result of the refresh running under `key`, starting `operation` if none runs.
    func run(key: String, _ operation: @escaping @Sendable () async throws -> StoredGrant) async throws -> StoredGrant {
        let task: Task<StoredGrant, any Error>
        if let running = inFlight[key] {
            task = running.task
            inFlight[key]?.callers += 1
        } else {
            nextID += 1
            let id = nextID
            task = Task {
                let result: Result<StoredGrant, any Error>
                do { result = .success(try await operation()) } catch { result = .failure(error) }
                self.finished(key: key, id: id)
                return try result.get()
            }
            inFlight[key] = (id, task, 1)
        }
        return try await Self.value(of: task)
    }

    /// How many callers have waited on the refresh running under `key` (0 when none runs).
    func callers(of key: String) -> Int {
        inFlight[key]?.callers ?? 0
    }

    private func finished(key: String, id: Int) {
        if inFlight[key]?.id == id { inFlight[key] = nil }
    }

    /// `task`'s value, or ``AuthorizationError/taskCancelled`` as soon as the caller is
    /// cancelled; `task` itself is not cancelled.
    private static func value(of task: Task<StoredGrant, any Error>) async throws -> StoredGrant {
        let waiter = Waiter()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<StoredGrant, any Error>) in
                waiter.install(continuation)
                Task { waiter.finish(await task.result) }
            }
        } onCancel: {
            waiter.finish(.failure(AuthorizationError.taskCancelled))
        }
    }

    /// One caller's continuation, resumed by whichever comes first: the result or the cancel.
    private final class Waiter: Sendable {
        private let state = LockedState<
            (
                continuation: CheckedContinuation<StoredGrant, any Error>?, early: Result<StoredGrant, any Error>?,
                done: Bool
            )
        >((nil, nil, false))

        func install(_ continuation: CheckedContinuation<StoredGrant, any Error>) {
            let early = state.withLock { current -> Result<StoredGrant, any Error>? in
                if let early = current.early { return early }
                current.continuation = continuation
                return nil
            }
            if let early { continuation.resume(with: early) }
        }

        func finish(_ result: Result<StoredGrant, any Error>) {
            let continuation = state.withLock { current -> CheckedContinuation<StoredGrant, any Error>? in
                guard !current.done else { return nil }
                current.done = true
                guard let continuation = current.continuation else {
                    current.early = result
                    return nil
                }
                current.continuation = nil
                return continuation
            }
            continuation?.resume(with: result)
        }
    }
}
