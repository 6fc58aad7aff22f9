import Synchronization

/// What verifying a token found (its claims), by the token's exact text, for as long as the keys
/// that verified it are the provider's keys (``KeyRing/generation``).
///
/// Why one type: the access tokens of the resource endpoints (``AccessTokenVerifier``) and the
/// ID tokens of the Native SSO exchange (``VerifiedIDTokens``) are presented again and again,
/// and a signature verification costs tens of microseconds (RS256: more) where a lookup costs
/// well under one. Only what is immutable about a token is kept; a lookup with another
/// generation than the entry's misses, so a revoked or retired key takes its tokens' entries
/// with it, and a token that differs in any byte is another key.
///
/// When full (``capacity`` entries) it empties itself and starts again rather than sifting the
/// entries under the lock every request takes: a sift frees little when most entries are young,
/// so it would repeat on each insert; the next requests verify once each and refill it. The old
/// entries are freed after the lock is released, not under it.
final class VerifiedTokenCache<Value: Sendable>: Sendable {
    private struct Entry: Sendable {
        let value: Value
        let generation: Int
    }

    private struct State: Sendable {
        var entries: [String: Entry] = [:]
        /// Counted under the lock a lookup takes anyway (no second shared cache line).
        var hits = 0
    }

    /// The most tokens kept at once.
    let capacity: Int
    private let state = Mutex(State())

    /// An empty cache of at most `capacity` tokens.
    init(capacity: Int) {
        self.capacity = capacity
    }

    /// What `token` verified to, if it verified with the keys of `generation` (the current one).
    func value(of token: String, generation: Int) -> Value? {
        state.withLock { state in
            guard let entry = state.entries[token], entry.generation == generation else { return nil }
            state.hits += 1
            return entry.value
        }
    }

    /// Remembers that `token` verified to `value` with the keys of `generation`.
    func remember(_ value: Value, of token: String, generation: Int) {
        let entry = Entry(value: value, generation: generation)
        let discarded = state.withLock { state -> [String: Entry]? in
            var full: [String: Entry]?
            if state.entries.count >= capacity, state.entries.index(forKey: token) == nil {
                full = state.entries
                state.entries = Dictionary(minimumCapacity: capacity)
            }
            state.entries[token] = entry
            return full
        }
        // The full table is freed here, outside the lock.
        withExtendedLifetime(discarded) {}
    }

    /// How many tokens are kept (for tests).
    var count: Int {
        state.withLock { $0.entries.count }
    }

    /// How many lookups found their token (for tests: that a repeated request was answered from
    /// memory).
    var hits: Int {
        state.withLock { $0.hits }
    }
}
