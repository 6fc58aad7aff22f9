import Foundation
import Synchronization

/// One pending custom-scheme authorization, waiting for the app to forward its callback.
final class RedirectWaiter: Sendable {
    let redirectURI: URL
    let state: String
    let grace: Duration
    private struct State {
        var continuation: CheckedContinuation<URL, any Error>?
        var outcome: Result<URL, any Error>?
    }

    private let progress = Mutex(State())

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

    /// The app is in front again: unless the callback arrives within the grace, the person
    /// came back without finishing, which ends the authorization as cancelled by them.
    func becameActive() {
        let grace = grace
        Task { [weak self] in
            try? await Task.sleep(for: grace)
            self?.finish(.failure(AuthorizationError(.userCancelled, "the person returned without signing in")))
        }
    }

    /// Ends the wait because the app signed out meanwhile.
    func cancelAsSignedOut() {
        finish(.failure(AuthorizationError(.cancelled, "the app signed out during the authorization")))
    }

    private func finish(_ result: Result<URL, any Error>) {
        let waiting = progress.withLock { current -> CheckedContinuation<URL, any Error>? in
            guard current.outcome == nil else { return nil }
            current.outcome = result
            defer { current.continuation = nil }
            return current.continuation
        }
        waiting?.resume(with: result)
    }
}

/// The manager's one slot for a pending custom-scheme authorization.
final class RedirectSlot: Sendable {
    private let waiter = Mutex<RedirectWaiter?>(nil)

    func install(_ new: RedirectWaiter) {
        waiter.withLock { $0 = new }
    }

    func remove(_ old: RedirectWaiter) {
        waiter.withLock { if $0 === old { $0 = nil } }
    }

    var current: RedirectWaiter? { waiter.withLock { $0 } }
}
