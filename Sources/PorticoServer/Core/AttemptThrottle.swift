import Foundation
import Synchronization

/// Counts failed attempts per key (a client address, an account) over a sliding window, and
/// says when a key has used up its allowance.
///
/// Why in memory: a throttle is a brake on guessing, not a record; keeping it in the process
/// costs no database write per wrong guess. The price is that every node counts on its own (an
/// attacker spread over N nodes gets N allowances) and a restart forgets the counts, which is
/// acceptable for codes that live ten minutes. Only failures are counted, so people who type
/// their code right are never slowed down, and while a key is blocked even correct guesses are
/// refused, so an attacker cannot learn anything by continuing. Memory is bounded by
/// ``capacity`` keys.
final class AttemptThrottle: Sendable {
    /// How many failures a key may have within ``window``.
    let limit: Int
    /// The span over which failures count.
    let window: TimeInterval
    /// The most keys remembered; past it, keys whose failures are all outside the window go,
    /// then those whose last failure is oldest.
    let capacity: Int

    private let failures = Mutex<[String: [Date]]>([:])

    /// A throttle allowing `limit` failures per key within `window` seconds.
    init(limit: Int, window: TimeInterval, capacity: Int = 100_000) {
        self.limit = max(1, limit)
        self.window = window
        self.capacity = max(1, capacity)
    }

    /// Whether `key` has used up its failures at `now`: further attempts must be refused.
    func isBlocked(_ key: String, now: Date) -> Bool {
        retryAfter(key, now: now) != nil
    }

    /// Seconds until `key` may try again (rounded up), or nil when it may try now.
    func retryAfter(_ key: String, now: Date) -> Int? {
        failures.withLock { entries in
            let recent = (entries[key] ?? []).filter { now.timeIntervalSince($0) < window }
            guard recent.count >= limit, let oldest = recent.first else { return nil }
            return max(1, Int((window - now.timeIntervalSince(oldest)).rounded(.up)))
        }
    }

    /// Counts one failure of `key` at `now`.
    func recordFailure(_ key: String, now: Date) {
        failures.withLock { entries in
            if entries[key] == nil && entries.count >= capacity { makeRoom(in: &entries, now: now) }
            var recent = (entries[key] ?? []).filter { now.timeIntervalSince($0) < window }
            recent.append(now)
            entries[key] = Array(recent.suffix(limit))
        }
    }

    /// Forgets the failures of `key` (after a success that proves the person, such as a sign-in).
    func reset(_ key: String) {
        _ = failures.withLock { $0.removeValue(forKey: key) }
    }

    private func makeRoom(in entries: inout [String: [Date]], now: Date) {
        entries = entries.filter { _, times in times.last.map { now.timeIntervalSince($0) < window } ?? false }
        guard entries.count >= capacity else { return }
        let byAge = entries.sorted { ($0.value.last ?? .distantPast) < ($1.value.last ?? .distantPast) }
        for (key, _) in byAge.prefix(entries.count - capacity / 2) { entries.removeValue(forKey: key) }
    }
}
