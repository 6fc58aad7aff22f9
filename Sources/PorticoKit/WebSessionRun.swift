import Foundation

/// One in-app web session's outcome (``WebAuthenticationSessionUserAgent``), decided once by
/// whichever comes first, so that `authorize` always ends:
///
/// - the system's completion, which AuthenticationServices may call on any queue;
/// - the deadline (locking the phone during the system's "wants to use … to sign in" alert
///   loses the completion for good: AppAuth-iOS#468, Auth0.swift#879);
/// - the app's cancel (the task was cancelled);
/// - a return to the foreground that, after ``foregroundSettle``, finds no sheet on screen:
///   the session was lost, and the person is told so rather than left waiting.
///
/// A callback arriving late (during the settle time, or just after the app came back) still
/// wins while the caller waits. Platform-neutral: the Apple agent feeds it, the tests drive it.
final class WebSessionRun: Sendable {
    private struct State {
        var outcome: Result<URL, AuthorizationError>?
        var waiter: CheckedContinuation<URL, any Error>?
        var timers: [Task<Void, Never>] = []
        var cancelledByApp = false
    }

    private let state = LockedState(State())
    /// How long after a return to the foreground the sheet has to be seen again.
    let foregroundSettle: Duration
    private let isSheetShowing: @Sendable () async -> Bool
    private let onEnd: @Sendable () -> Void
    private let presence: WebSessionPresence.Token

    /// A run that ends by itself after `timeout`; `isSheetShowing` is asked after a return to
    /// the foreground; `onEnd` runs once when the outcome is known (the agent dismisses the
    /// session there); the run counts in `presence` (the process's, or a test's own) until it
    /// ends.
    init(
        timeout: Duration, foregroundSettle: Duration = .seconds(1),
        isSheetShowing: @escaping @Sendable () async -> Bool, onEnd: @escaping @Sendable () -> Void = {},
        presence: WebSessionPresence = .shared
    ) {
        self.foregroundSettle = foregroundSettle
        self.isSheetShowing = isSheetShowing
        self.onEnd = onEnd
        self.presence = presence.begin()
        let deadline = Task { [weak self] in
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            self?.finish(.failure(AuthorizationError(.timedOut, "the sign-in sheet did not answer within \(timeout)")))
        }
        state.withLock { $0.timers.append(deadline) }
    }

    deinit {
        presence.end()
    }

    /// The system's completion handler, from any thread: the callback URL, or the session's
    /// error, `isCanceledLogin` when that error is AuthenticationServices' "canceled login".
    func completed(callback: URL?, error: (any Error)?, isCanceledLogin: Bool) {
        if let callback { return finish(.success(callback)) }
        let byApp = state.withLock { $0.cancelledByApp }
        if byApp {
            finish(.failure(.taskCancelled))
        } else if isCanceledLogin {
            finish(.failure(AuthorizationError(.userCancelled, "the person closed the sign-in")))
        } else {
            finish(.failure(AuthorizationError(.invalidResponse, "the web session failed", underlyingError: error)))
        }
    }

    /// The session could not be started at all.
    func failedToStart() {
        finish(.failure(AuthorizationError(.invalidInput, "the web session could not start")))
    }

    /// The app cancelled (its task was cancelled): a "canceled login" from now on is the app's.
    func cancelByApp() {
        state.withLock { $0.cancelledByApp = true }
        finish(.failure(.taskCancelled))
    }

    /// The app came back to the foreground: after ``foregroundSettle``, unless an answer came
    /// meanwhile or the sheet is on screen, the session is lost and the run ends.
    func returnedToForeground() {
        let settle = foregroundSettle
        let check = Task { [weak self] in
            guard (try? await Task.sleep(for: settle)) != nil, let self else { return }
            guard !(await self.isSheetShowing()) else { return }
            self.finish(
                .failure(
                    AuthorizationError(
                        .userCancelled, "the sign-in sheet was gone when the app came back (was the device locked?)")))
        }
        let done = state.withLock { current -> Bool in
            if current.outcome == nil { current.timers.append(check) }
            return current.outcome != nil
        }
        if done { check.cancel() }
    }

    /// Whether the outcome is known.
    var hasEnded: Bool { state.withLock { $0.outcome != nil } }

    /// The callback URL, or the error that ended the run.
    func wait() async throws -> URL {
        try await withCheckedThrowingContinuation { continuation in
            let known = state.withLock { current -> Result<URL, AuthorizationError>? in
                if current.outcome == nil { current.waiter = continuation }
                return current.outcome
            }
            if let known { continuation.resume(with: known.mapError { $0 as any Error }) }
        }
    }

    private func finish(_ outcome: Result<URL, AuthorizationError>) {
        let taken = state.withLock { current -> (CheckedContinuation<URL, any Error>?, [Task<Void, Never>])? in
            guard current.outcome == nil else { return nil }
            current.outcome = outcome
            defer {
                current.waiter = nil
                current.timers = []
            }
            return (current.waiter, current.timers)
        }
        guard let (waiter, timers) = taken else { return }
        for timer in timers { timer.cancel() }
        presence.end()
        onEnd()
        waiter?.resume(with: outcome.mapError { $0 as any Error })
    }
}
