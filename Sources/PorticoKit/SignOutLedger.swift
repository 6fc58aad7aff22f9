/// Counts sign-outs per grant, so that work begun before a sign-out (a refresh, a sign-in, a
/// profile fetch) never writes the grant back after it.
///
/// The check and the write happen under one lock that ``signOut(_:remove:)`` also takes, so a
/// sign-out either comes before the write (which is then dropped) or after it (and removes
/// what was written). The key is the refresh key: store, provider and client.
final class SignOutLedger: Sendable {
    static let shared = SignOutLedger()

    private let epochs = LockedState<[String: UInt64]>([:])

    /// The number of sign-outs of `key` so far; pass it to ``write(_:since:_:)`` later.
    func epoch(_ key: String) -> UInt64 {
        epochs.withLock { $0[key] ?? 0 }
    }

    /// Runs `body` unless `key` was signed out since `epoch`; false when it was (and `body`
    /// did not run).
    func write(
        _ key: String, since epoch: UInt64, _ body: () throws(AuthorizationError) -> Void
    ) throws(AuthorizationError) -> Bool {
        try epochs.withLock { (epochs) throws(AuthorizationError) -> Bool in
            guard (epochs[key] ?? 0) == epoch else { return false }
            try body()
            return true
        }
    }

    /// Runs `body` under the lock without counting a sign-out: a change of the stored grant
    /// (and its announcement) that must not interleave with a write or a sign-out.
    func withLock(_ key: String, _ body: () throws(AuthorizationError) -> Void) throws(AuthorizationError) {
        try epochs.withLock { (_) throws(AuthorizationError) -> Void in try body() }
    }

    /// Records a sign-out of `key` and runs `remove` under the same lock.
    func signOut(_ key: String, remove: () throws(AuthorizationError) -> Void) throws(AuthorizationError) {
        try epochs.withLock { (epochs) throws(AuthorizationError) -> Void in
            epochs[key, default: 0] += 1
            try remove()
        }
    }
}

/// The interactive authorizations a manager is running, so that signing out ends them all:
/// loopback, device, web session and custom scheme alike.
final class InteractiveFlights: Sendable {
    private let running = LockedState<[Int: Task<AuthorizationOutcome, any Error>]>([:])
    private let counter = LockedState<Int>(0)

    /// Runs `operation` as a flight that ``cancelAll()`` can end; the caller's own
    /// cancellation ends it too.
    func run(
        _ operation: @escaping @Sendable () async throws -> AuthorizationOutcome
    ) async throws -> AuthorizationOutcome {
        let id = counter.increment()
        let flight = Task { try await operation() }
        running.withLock { $0[id] = flight }
        defer { _ = running.withLock { $0.removeValue(forKey: id) } }
        return try await withTaskCancellationHandler {
            try await flight.value
        } onCancel: {
            flight.cancel()
        }
    }

    /// Cancels every running flight.
    func cancelAll() {
        for flight in running.withLock({ Array($0.values) }) { flight.cancel() }
    }
}
