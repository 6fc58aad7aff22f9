import Foundation

/// Admission for Argon2id: at most `concurrent` password hashes run at once, at most
/// `waiting` more wait (each for at most `maximumWait`) for a turn, and the rest are turned
/// away at once.
///
/// An Argon2id check costs tens of milliseconds of one core and ~19 MiB by design. Without a
/// bound, a sign-in flood runs as many hashes as there are worker threads: they share the cores
/// with the epoll threads that answer the token endpoint, evict each other's memory from the
/// caches, and every sign-in gets slower while the cheap requests starve. With one hash per
/// core the hashing keeps its fair share and no more, and a sign-in that cannot have a turn
/// soon is answered 503 with `Retry-After` (``PageProblem/busy``) without hashing, which
/// costs next to nothing.
final class PasswordCheckGate: @unchecked Sendable {
    // @unchecked: `running` and `queued` are only touched with `condition` locked.
    /// How many at once, how many may wait, and how long.
    struct Limits: Sendable {
        /// Hashes running at once.
        var concurrent: Int
        /// Checks waiting for a turn; more are turned away at once.
        var waiting: Int
        /// The longest a check waits for a turn before it is turned away.
        var maximumWait: Duration

        /// One hash per core, four per core waiting, for at most half a second: a few hashes'
        /// time on a machine whose cores are shared with other work (a quarter of a second shed
        /// sign-ins at a few per second in bench/soak on a shared machine), well within a
        /// person's patience. Four per core: with PostgreSQL a node runs four worker threads per
        /// core, and with only one waiting place per core 16 concurrent sign-ins were shed by the
        /// thousand although each would have had its turn within 50 ms (bench/idp/cluster.sh);
        /// so the count never sheds what the worker threads bring, only the wait does.
        static let standard = Limits(
            concurrent: ProcessInfo.processInfo.activeProcessorCount,
            waiting: 4 * ProcessInfo.processInfo.activeProcessorCount, maximumWait: .milliseconds(500))
    }

    /// The limits it admits by.
    let limits: Limits
    private let condition = NSCondition()
    private var running = 0
    private var queued = 0

    /// A gate with `limits` (each at least one running, none waiting).
    init(limits: Limits = .standard) {
        self.limits = Limits(
            concurrent: max(1, limits.concurrent), waiting: max(0, limits.waiting), maximumWait: limits.maximumWait)
    }

    /// Runs `work` once it has a turn and returns its result, or returns nil without running
    /// it when the gate is full (all turns taken and the waiting places too, or no turn came
    /// within `maximumWait`).
    func admit<T>(_ work: () throws -> T) rethrows -> T? {
        guard enter() else { return nil }
        defer { leave() }
        return try work()
    }

    private func enter() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if running < limits.concurrent {
            running += 1
            return true
        }
        guard queued < limits.waiting else { return false }
        queued += 1
        defer { queued -= 1 }
        let seconds = limits.maximumWait.components
        let deadline = Date().addingTimeInterval(Double(seconds.seconds) + Double(seconds.attoseconds) / 1e18)
        while running >= limits.concurrent {
            guard condition.wait(until: deadline) else {
                guard running < limits.concurrent else { return false }
                break
            }
        }
        running += 1
        return true
    }

    private func leave() {
        condition.lock()
        running -= 1
        condition.signal()
        condition.unlock()
    }
}
