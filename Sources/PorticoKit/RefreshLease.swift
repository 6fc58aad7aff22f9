import Foundation

/// A cross-process refresh lock made of an item that only one process can create: on Apple the
/// keychain (`SecItemAdd` answers `errSecDuplicateItem` when the item exists; an app and its
/// extensions in one access group see the same item), in the tests an `O_EXCL` file.
///
/// Unlike a file lock, a keychain item outlives a process that crashed while holding it, so each
/// lease carries an expiry well past the refresh deadline; a waiter that finds an expired lease
/// removes that lease (by its identifier, never a newer one) and claims again.
struct RefreshLease: Sendable {
    /// One holder's lease.
    struct Lease: Sendable, Equatable {
        /// Unique per claim, so only this lease is ever removed for it.
        let identifier: String
        /// When the lease no longer holds (its holder is presumed dead).
        let expiresAt: Date
    }

    /// What a claim found.
    enum Claim: Sendable {
        /// The lease is ours.
        case acquired
        /// Another holder has it; nil when it vanished meanwhile (claim again at once). A lease
        /// that exists but cannot be read is reported with an expiry in the past.
        case held(Lease?)
    }

    /// Creates `lease` unless a lease exists.
    let claim: @Sendable (_ lease: Lease) throws -> Claim
    /// Removes `lease`, and only that lease, if it still exists.
    let remove: @Sendable (_ lease: Lease) throws -> Void
    /// How long a lease holds: longer than any refresh may take.
    var duration: TimeInterval = 60
    /// How often a waiter looks again.
    var pollInterval: Duration = .milliseconds(50)
    /// The clock.
    var now: @Sendable () -> Date = { Date() }

    /// Runs `body` holding the lease; waits (cancellably) while another holder has it.
    func whileHolding<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        while true {
            let mine = Lease(identifier: UUID().uuidString, expiresAt: now().addingTimeInterval(duration))
            switch try claim(mine) {
            case .acquired:
                let result: Result<T, any Error>
                do { result = .success(try await body()) } catch { result = .failure(error) }
                try? remove(mine)
                return try result.get()
            case .held(let other):
                if let other, other.expiresAt < now() {
                    try remove(other)
                    continue
                }
                if other == nil { continue }
                do { try await Task.sleep(for: pollInterval) } catch { throw AuthorizationError.taskCancelled }
            }
        }
    }
}
