import Foundation
import PorticoStore

/// Rate limits on guessing: sign-in attempts per account and per address, password-reset
/// requests per address.
///
/// Attempts are rows in the shared store (``ThrottleAttempt``), so every node counts the same
/// attempts and a restart forgets nothing; the background purger deletes them once they no
/// longer count. The check and the counting happen in one write transaction *before* the
/// password is verified, so parallel requests cannot slip past a limit together; an attempt
/// that turns out to be no guess (a successful sign-in) is taken back afterwards. Refused
/// attempts are not counted, so an attacker cannot keep an account locked forever, and the
/// owner gets in again as soon as the window has passed.
struct AttemptThrottle: Sendable {
    /// One limit: at most `maximum` attempts under `key` within `window`.
    struct Limit: Sendable {
        /// What is counted (`sign-in:account:…`, `sign-in:address:…`).
        var key: String
        /// How many attempts the window holds before further ones are refused.
        var maximum: Int
        /// How far back attempts count.
        var window: TimeInterval
    }

    /// The outcome of asking to make an attempt.
    enum Decision: Sendable {
        /// Go ahead; the attempt is counted under each limit's key (these rows).
        case allowed([ThrottleAttempt])
        /// Refused; the earliest a new attempt can be allowed is this many seconds away.
        case refused(retryAfter: TimeInterval)
    }

    /// Sign-in: 5 failures for one account within 15 minutes.
    static let accountLimit = 5
    /// Sign-in: 20 failures from one address within 15 minutes.
    static let addressLimit = 20
    /// Password-reset requests: 5 from one address within 15 minutes.
    static let resetRequestLimit = 5
    /// The window all three are counted in.
    static let window: TimeInterval = 15 * 60

    /// The provider's store and clock.
    let context: ProviderContext

    /// The limits for a sign-in with `email` from `address`.
    static func signInLimits(email: String, address: String) -> [Limit] {
        [
            Limit(key: "sign-in:account:" + UserRecord.normalizedEmail(email), maximum: accountLimit, window: window),
            Limit(key: "sign-in:address:" + address, maximum: addressLimit, window: window),
        ]
    }

    /// The limit for asking for a password-reset link from `address`.
    static func resetRequestLimits(address: String) -> [Limit] {
        [Limit(key: "password-forgot:address:" + address, maximum: resetRequestLimit, window: window)]
    }

    /// Counts an attempt under every limit, or refuses it if any limit is reached.
    func attempt(_ limits: [Limit]) throws -> Decision {
        let now = context.now()
        return try context.store.transaction { transaction in
            var wait: TimeInterval = 0
            for limit in limits {
                let times = try transaction.throttleAttempts(
                    key: limit.key, since: now.addingTimeInterval(-limit.window))
                guard times.count >= limit.maximum else { continue }
                // The window frees a place when the attempt that filled it ages out.
                let freed = times[times.count - limit.maximum].addingTimeInterval(limit.window)
                wait = max(wait, freed.timeIntervalSince(now), 1)
            }
            if wait > 0 { return .refused(retryAfter: wait) }
            let attempts = limits.map {
                ThrottleAttempt(key: $0.key, attemptedAt: now, expiresAt: now.addingTimeInterval($0.window))
            }
            for attempt in attempts { try transaction.insert(attempt) }
            return .allowed(attempts)
        }
    }

    /// Takes back `attempts` (they were no guesses) and clears every count under `clearing`.
    func forgive(_ attempts: [ThrottleAttempt], clearing keys: [String] = []) throws {
        try context.store.transaction { transaction in
            for attempt in attempts { try transaction.deleteThrottleAttempt(id: attempt.id) }
            for key in keys { try transaction.deleteThrottleAttempts(key: key) }
        }
    }

    /// "Too many attempts. Try again in N minutes." for a wait of `seconds`.
    static func refusal(retryAfter seconds: TimeInterval) -> Localized {
        let minutes = max(1, Int((seconds / 60).rounded(.up)))
        return Localized(
            "Too many attempts. Try again in \(minutes) \(minutes == 1 ? "minute" : "minutes").",
            zh: "尝试次数过多。请在 \(minutes) 分钟后重试。")
    }
}
