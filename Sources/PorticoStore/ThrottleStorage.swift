import Foundation

/// Counted attempts (sign-ins, resets) under throttle keys.
///
/// Part of ``StoreTransaction``; see its "Implementation requirements".
public protocol ThrottleStorage {
    /// Counts one attempt under its key.
    func insert(_ attempt: ThrottleAttempt) throws
    /// When the attempts under `key` after `since` happened, oldest first.
    func throttleAttempts(key: String, since: Date) throws -> [Date]
    /// Takes back one attempt (one reserved before a check that then succeeded).
    @discardableResult func deleteThrottleAttempt(id: String) throws -> Bool
    /// Forgets every attempt under `key` (a successful sign-in clears its account's count).
    @discardableResult func deleteThrottleAttempts(key: String) throws -> Int
}
