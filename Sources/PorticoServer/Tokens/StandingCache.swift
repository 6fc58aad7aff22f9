import Foundation
import PorticoHTTP
import PorticoStore
import Synchronization

/// Access-token standings (not revoked, and the person behind the token) kept in memory on a
/// node whose store reports every change to them (``StandingChangeFeed``, PostgreSQL), so that
/// userinfo and the profile endpoint answer a known token without a round trip, on the epoll
/// thread.
///
/// Why this is exact and the node still stateless: an entry is stamped with the feed's
/// generation read *before* the store was read, and used only while the generation is still
/// that one. The feed moves it for every committed change that could alter a standing: through
/// this node before the changing request answers (a revocation here is seen by the very next
/// request), from other nodes and the command-line tool within PostgreSQL's notification
/// latency (milliseconds). While the feed cannot vouch for that (its listener reconnecting) it
/// reports no generation, and nothing is read from or kept in the cache. As defence in depth an
/// entry is also used at most ``maximumAge`` after it was read, and never past its token's
/// expiry.
///
/// Only standings that admit are kept (a revoked token, a disabled or missing person always
/// read the store), without the password hash, which no resource endpoint uses. At most
/// ``capacity`` entries; when full, it empties itself and starts again. A new generation empties the
/// cache (counted as a flush).
final class StandingCache: Sendable {
    /// What the standing read is asked.
    struct Key: Hashable, Sendable {
        let tokenID: String
        let userID: String
        let clientID: String
        let issuedAt: Date

        /// The key of `token`'s standing (its subject is the account id).
        init(_ token: VerifiedAccessToken) {
            tokenID = token.tokenID
            userID = token.subject
            clientID = token.clientID
            issuedAt = token.issuedAt
        }
    }

    private struct Entry {
        let user: UserRecord
        let readAt: ContinuousClock.Instant
        let expiresAt: Date
    }

    private struct State {
        var generation: UInt64?
        var entries: [Key: Entry] = [:]
    }

    /// Most entries kept at once.
    let capacity: Int
    /// The longest an entry is used after it was read, whatever the feed says.
    let maximumAge: Duration
    private let feed: any StandingChangeFeed
    private let now: @Sendable () -> ContinuousClock.Instant
    private let state = Mutex(State())
    private let hits: MetricsCounter
    private let misses: MetricsCounter
    private let flushes: MetricsCounter

    /// A cache following `feed` (which it starts following), counting in `registry`; `now` is
    /// the clock ages are measured by (tests move it).
    init(
        feed: any StandingChangeFeed, registry: MetricsRegistry, capacity: Int = 100_000,
        maximumAge: Duration = .seconds(10), now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        self.feed = feed
        self.now = now
        self.capacity = capacity
        self.maximumAge = maximumAge
        hits = registry.counter(
            "portico_standing_cache_hits_total",
            help: "Userinfo and profile requests whose token standing came from memory.")
        misses = registry.counter(
            "portico_standing_cache_misses_total",
            help: "Userinfo and profile requests whose token standing was read from the database.")
        flushes = registry.counter(
            "portico_standing_cache_flushes_total",
            help: "Times the standing cache was emptied because the database reported a change.")
        registry.gauge(
            "portico_standing_cache_live",
            help: "1 while the database's change notifications are followed (the standing cache is on), else 0."
        ) { [feed] in feed.standingGeneration == nil ? 0 : 1 }
        feed.followStandingChanges()
    }

    /// The cache for `store`, or nil when it reports no changes (SQLite).
    static func following(_ store: any Store, registry: MetricsRegistry) -> StandingCache? {
        guard let feed = store as? any StandingChangeFeed else { return nil }
        return StandingCache(feed: feed, registry: registry)
    }

    /// The person behind `token` (verified, so unexpired) if its standing is in memory and
    /// current (counted as a hit); nil otherwise, and then the caller reads the store.
    func user(for token: VerifiedAccessToken) -> UserRecord? {
        guard let generation = feed.standingGeneration else { return nil }
        let key = Key(token)
        let clock = now()
        let (entry, discarded) = state.withLock { state -> (Entry?, [Key: Entry]?) in
            // A generation older than the cache's was read before a change this thread missed.
            if let known = state.generation, generation < known { return (nil, nil) }
            let discarded = synchronize(&state, to: generation)
            return (state.entries[key], discarded)
        }
        // Entries of an older generation are freed here, outside the lock.
        withExtendedLifetime(discarded) {}
        guard let entry, clock - entry.readAt < maximumAge else { return nil }
        hits.increment()
        return entry.user
    }

    /// What to hand ``remember(_:for:readAt:)`` after the read: the generation before it, or
    /// nil when nothing read now may be kept. Counts a miss.
    func generationBeforeRead() -> UInt64? {
        misses.increment()
        return feed.standingGeneration
    }

    /// Keeps `user` as `token`'s standing, read when the generation was `generation`, unless
    /// the generation has moved since (the read may have missed that change).
    func remember(_ user: UserRecord, for token: VerifiedAccessToken, readAt generation: UInt64) {
        let clock = now()
        var kept = user
        kept.passwordHash = ""
        let entry = Entry(user: kept, readAt: clock, expiresAt: token.expiresAt)
        let key = Key(token)
        let discarded = state.withLock { state -> [Key: Entry]? in
            guard feed.standingGeneration == generation else { return nil }
            var discarded = synchronize(&state, to: generation)
            // Full: start again rather than sift 100k entries under the lock the epoll threads
            // read through (a sift frees little when every entry is young, so it would repeat on
            // each insert); the next requests read the database once each and refill it.
            if state.entries.count >= capacity, state.entries.index(forKey: key) == nil {
                discarded = state.entries
                state.entries = [:]
            }
            state.entries[key] = entry
            return discarded
        }
        // What was emptied out is freed here, outside the lock.
        withExtendedLifetime(discarded) {}
    }

    /// Moves to `generation`: the entries of an older one leave the cache and are returned, to be
    /// freed once the lock is released (100k entries take a while to free).
    private func synchronize(_ state: inout State, to generation: UInt64) -> [Key: Entry]? {
        guard state.generation != generation else { return nil }
        if state.generation != nil { flushes.increment() }
        state.generation = generation
        let old = state.entries
        state.entries = [:]
        return old
    }
}
