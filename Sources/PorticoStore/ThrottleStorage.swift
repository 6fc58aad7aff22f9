import Foundation

/// Counted attempts (sign-ins, resets) under throttle keys.
///
/// Part of ``StoreTransaction``; see its "Implementation requirements".
public protocol ThrottleStorage {
    /// Counts one attempt under its key.
    func insert(_ attempt: ThrottleAttempt) throws
    /// Holds `key` until the transaction ends: a second transaction locking it waits, then
    /// counts with this one's attempt in. Without it two nodes counting at once each see the
    /// count before the other's insert, and a guesser spread over nodes gets more tries.
    /// Callers holding several keys lock them in one order (sorted), so two never deadlock.
    func lockThrottleKey(_ key: String) throws
    /// When the attempts under `key` after `since` happened, oldest first.
    func throttleAttempts(key: String, since: Date) throws -> [Date]
    /// Takes back one attempt (one reserved before a check that then succeeded).
    @discardableResult func deleteThrottleAttempt(id: String) throws -> Bool
    /// Forgets every attempt under `key` (a successful sign-in clears its account's count).
    @discardableResult func deleteThrottleAttempts(key: String) throws -> Int
}
