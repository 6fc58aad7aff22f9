import Foundation

/// One pending custom-scheme authorization, waiting for the app to forward its callback.
final class RedirectWaiter: Sendable {
    let redirectURI: URL
    let state: String
    let grace: Duration
    private struct State {
        var continuation: CheckedContinuation<URL, any Error>?
        var outcome: Result<URL, any Error>?
        /// Whether the browser has opened; activations before do not start the grace.
        var opened = false
        /// The running grace timer; a later activation replaces it.
        var graceTimer: Task<Void, Never>?
        var deadlineTimer: Task<Void, Never>?
    }

    private let progress = LockedState(State())

    init(redirectURI: URL, state: String, grace: Duration) {
        self.redirectURI = redirectURI
        self.state = state
        self.grace = grace
    }

    /// Suspends until ``deliver(_:)``, the grace after ``becameActive()``, or cancellation.
    func wait() async throws -> URL {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiting: CheckedContinuation<URL, any Error>) in
                let done = progress.withLock { current -> Result<URL, any Error>? in
                    if let outcome = current.outcome { return outcome }
                    current.continuation = waiting
                    return nil
                }
                if let done { waiting.resume(with: done) }
            }
        } onCancel: {
            finish(.failure(AuthorizationError.taskCancelled))
        }
    }

    /// Whether `url` is this authorization's callback: same scheme, host and path as the
    /// redirect URI, and the same `state`.
    func matches(_ url: URL) -> Bool {
        guard url.scheme?.lowercased() == redirectURI.scheme?.lowercased(), url.host == redirectURI.host,
            url.path == redirectURI.path,
            let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems
        else { return false }
        return items.contains { $0.name == "state" && $0.value == state }
    }

    /// Completes with the callback.
    func deliver(_ url: URL) {
        finish(.success(url))
    }

    /// The browser has the authorization URL: from now on the app becoming active means
    /// the person came back.
    func browserOpened() {
        progress.withLock { $0.opened = true }
    }

    /// Ends the wait as timed out after `timeout`.
    func startDeadline(_ timeout: Duration) {
        let timer = Task { [weak self] in
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            self?.finish(.failure(AuthorizationError(.timedOut, "the browser did not come back in time")))
        }
        progress.withLock { $0.deadlineTimer = timer }
    }

    /// The app is in front again: unless the callback arrives within the grace, the person
    /// came back without finishing, which ends the authorization as cancelled by them. Each
    /// activation restarts the grace; activations before the browser opened are ignored.
    func becameActive() {
        let grace = grace
        let timer = Task { [weak self] in
            guard (try? await Task.sleep(for: grace)) != nil else { return }
            self?.finish(.failure(AuthorizationError(.userCancelled, "the person returned without signing in")))
        }
        let replaced = progress.withLock { current -> (Task<Void, Never>?, started: Bool) in
            guard current.opened, current.outcome == nil else { return (nil, false) }
            defer { current.graceTimer = timer }
            return (current.graceTimer, true)
        }
        replaced.0?.cancel()
        if !replaced.started { timer.cancel() }
    }

    /// Whether the wait has ended.
    var isFinished: Bool { progress.withLock { $0.outcome != nil } }

    /// Ends the wait because the app signed out meanwhile.
    func cancelAsSignedOut() {
        finish(.failure(AuthorizationError(.cancelled, "the app signed out during the authorization")))
    }

    private func finish(_ result: Result<URL, any Error>) {
        let taken = progress.withLock {
            current -> (CheckedContinuation<URL, any Error>?, [Task<Void, Never>?])? in
            guard current.outcome == nil else { return nil }
            current.outcome = result
            defer { current.continuation = nil }
            return (current.continuation, [current.graceTimer, current.deadlineTimer])
        }
        guard let taken else { return }
        for timer in taken.1 { timer?.cancel() }
        taken.0?.resume(with: result)
    }
}

/// The manager's one slot for a pending custom-scheme authorization.
final class RedirectSlot: Sendable {
    private let waiter = LockedState<RedirectWaiter?>(nil)

    /// Installs `new` unless another waiter is still waiting; false then.
    func install(_ new: RedirectWaiter) -> Bool {
        waiter.withLock { current in
            if let current, !current.isFinished { return false }
            current = new
            return true
        }
    }

    func remove(_ old: RedirectWaiter) {
        waiter.withLock { if $0 === old { $0 = nil } }
    }

    var current: RedirectWaiter? { waiter.withLock { $0 } }
}
