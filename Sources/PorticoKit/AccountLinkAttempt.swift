import Foundation

/// One fetch of an ``AuthModel``: the authorization, then the host backend, raced against the
/// person coming back without acting, a deadline, and the app's logout.
///
/// Whichever ends first decides the outcome; the others are stopped. A result that arrives
/// while the grace after an activation runs still wins, because the callers are still waiting
/// then. The grace only covers the authorization step: once the platform answered, the host
/// backend's round trip is bounded by the deadline alone, so a slow backend never looks like a
/// person who did nothing.
final class AccountLinkAttempt: Sendable {
    private struct State {
        var waiters: [CheckedContinuation<AuthModel, any Error>] = []
        var outcome: Result<AuthModel, any Error>?
        var authorized = false
        var graceTimer: Task<Void, Never>?
        var deadlineTimer: Task<Void, Never>?
        var work: Task<Void, Never>?
    }

    private let state = LockedState(State())
    private let grace: Duration
    /// Where running web sessions are counted: the process's, or a test's own.
    private let presence: WebSessionPresence

    init(grace: Duration, presence: WebSessionPresence = .shared) {
        self.presence = presence
        self.grace = grace
    }

    /// Starts the work and the deadline.
    func start(deadline: Duration, fetch: @escaping @Sendable (AccountLinkProgress) async throws -> AuthModel) {
        let progress = AccountLinkProgress { [weak self] in self?.state.withLock { $0.authorized = true } }
        let work = Task {
            do { self.finish(.success(try await fetch(progress))) } catch let error as AuthorizationError {
                self.finish(.failure(AccountLinkError.authorization(error)))
            } catch {
                self.finish(.failure(AccountLinkError.hostBackend(error, "the auth model could not be fetched")))
            }
        }
        let timer = Task {
            guard (try? await Task.sleep(for: deadline)) != nil else { return }
            self.finish(.failure(AccountLinkError(.timedOut, "no auth model within \(deadline)")))
        }
        let late = state.withLock { current -> Bool in
            current.work = work
            current.deadlineTimer = timer
            return current.outcome != nil
        }
        if late {
            work.cancel()
            timer.cancel()
        }
    }

    /// Waits for the outcome.
    func wait() async throws -> AuthModel {
        try await withCheckedThrowingContinuation { continuation in
            let done = state.withLock { current -> Result<AuthModel, any Error>? in
                if let outcome = current.outcome { return outcome }
                current.waiters.append(continuation)
                return nil
            }
            if let done { continuation.resume(with: done) }
        }
    }

    /// The app is in front again: unless the authorization answers within the grace, the person
    /// came back without acting. Each activation restarts the grace, so a person who went back
    /// to the platform's page and finished there is not refused.
    ///
    /// While an in-app web session's sheet is up the activation is not a return: UIKit posts it
    /// when the sheet's system alert closes, and the person is still signing in.
    func becameActive() {
        guard !presence.isPresenting else { return }
        let grace = grace
        let timer = Task {
            guard (try? await Task.sleep(for: grace)) != nil else { return }
            self.finish(
                .failure(
                    AccountLinkError(.returnedWithoutActing, "the person came back without acting on the authorization")
                ))
        }
        let replaced = state.withLock { current -> (previous: Task<Void, Never>?, started: Bool) in
            guard !current.authorized, current.outcome == nil else { return (nil, false) }
            defer { current.graceTimer = timer }
            return (current.graceTimer, true)
        }
        replaced.previous?.cancel()
        if !replaced.started { timer.cancel() }
    }

    /// Ends the attempt with `error` (the app logged out or unbound).
    func cancel(_ error: AccountLinkError) {
        finish(.failure(error))
    }

    private func finish(_ result: Result<AuthModel, any Error>) {
        let taken = state.withLock { current -> ([CheckedContinuation<AuthModel, any Error>], [Task<Void, Never>?])? in
            guard current.outcome == nil else { return nil }
            current.outcome = result
            defer { current.waiters = [] }
            return (current.waiters, [current.graceTimer, current.deadlineTimer, current.work])
        }
        guard let taken else { return }
        // Stopping the work closes a loopback listener or a custom-scheme waiter at once.
        for task in taken.1 { task?.cancel() }
        for waiter in taken.0 { waiter.resume(with: result) }
    }
}
