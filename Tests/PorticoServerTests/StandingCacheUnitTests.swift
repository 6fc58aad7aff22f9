import Foundation
import PorticoHTTP
import PorticoStore
import Synchronization
import Testing

@testable import PorticoServer

/// The rules of ``StandingCache`` on their own: its capacity, its maximum age and its
/// generations, driven by a feed and a clock the test moves. (Over PostgreSQL's real
/// notifications, end to end: `StandingCacheTests`.)
@Suite struct StandingCacheUnitTests {
    /// A feed whose generation the test sets.
    private final class Feed: StandingChangeFeed {
        private let generation = Mutex<UInt64?>(1)

        func followStandingChanges() {}

        var standingGeneration: UInt64? {
            get { generation.withLock { $0 } }
            set { generation.withLock { $0 = newValue } }
        }
    }

    /// A clock that moves only when told.
    private final class Clock: Sendable {
        private let instant = Mutex(ContinuousClock.now)

        var now: ContinuousClock.Instant { instant.withLock { $0 } }

        func advance(by duration: Duration) {
            instant.withLock { $0 += duration }
        }
    }

    private let feed = Feed()
    private let clock = Clock()
    private let registry = MetricsRegistry()

    private func cache(capacity: Int = 100, maximumAge: Duration = .seconds(10)) -> StandingCache {
        StandingCache(
            feed: feed, registry: registry, capacity: capacity, maximumAge: maximumAge, now: { [clock] in clock.now })
    }

    private func token(_ number: Int) -> VerifiedAccessToken {
        VerifiedAccessToken(
            tokenID: "tok_\(number)", subject: "usr_\(number)", clientID: "app", scopes: ["openid"],
            audience: ["https://id.example"], issuedAt: Date(timeIntervalSince1970: 1_000),
            expiresAt: Date().addingTimeInterval(3600), authTime: Date(timeIntervalSince1970: 1_000))
    }

    private func user(_ number: Int) -> UserRecord {
        UserRecord(id: "usr_\(number)", email: "\(number)@example.com", name: "User \(number)", passwordHash: "hash")
    }

    /// Reads as an endpoint does: memory first, else "the store" (here `user(number)`), kept.
    private func remember(_ number: Int, in cache: StandingCache) throws {
        let generation = try #require(cache.generationBeforeRead())
        cache.remember(user(number), for: token(number), readAt: generation)
    }

    private func flushes() -> String? {
        registry.render().split(separator: "\n").first { $0.hasPrefix("portico_standing_cache_flushes_total ") }
            .map(String.init)
    }

    @Test func aRememberedStandingIsAnsweredWithoutItsPasswordHash() throws {
        let cache = cache()
        #expect(cache.user(for: token(1)) == nil)
        try remember(1, in: cache)
        let found = try #require(cache.user(for: token(1)))
        #expect(found.id == "usr_1")
        #expect(found.passwordHash.isEmpty)
        #expect(cache.user(for: token(2)) == nil)
    }

    @Test func aFullCacheEmptiesItselfAndStartsAgain() throws {
        let cache = cache(capacity: 3)
        for number in 1...3 { try remember(number, in: cache) }
        for number in 1...3 { #expect(cache.user(for: token(number))?.id == "usr_\(number)") }
        try remember(4, in: cache)
        for number in 1...3 { #expect(cache.user(for: token(number)) == nil, "entry \(number) survived") }
        #expect(cache.user(for: token(4))?.id == "usr_4")
        // Starting again, it fills up to its capacity once more.
        for number in 5...6 { try remember(number, in: cache) }
        for number in 4...6 { #expect(cache.user(for: token(number))?.id == "usr_\(number)") }
    }

    @Test func anEntryIsNotAnsweredOnceItIsAsOldAsTheMaximumAge() throws {
        let cache = cache(maximumAge: .seconds(10))
        try remember(1, in: cache)
        clock.advance(by: .seconds(9))
        #expect(cache.user(for: token(1)) != nil, "younger than the maximum age")
        clock.advance(by: .seconds(1))
        #expect(cache.user(for: token(1)) == nil)
        // Read again, it is young again.
        try remember(1, in: cache)
        #expect(cache.user(for: token(1)) != nil)
    }

    @Test func aStandingReadBeforeTheGenerationMovedIsNotKept() throws {
        let cache = cache()
        feed.standingGeneration = 5
        let before = try #require(cache.generationBeforeRead())
        feed.standingGeneration = 6  // a change committed while the store was read
        cache.remember(user(1), for: token(1), readAt: before)
        #expect(cache.user(for: token(1)) == nil)
        // Stamped with the current generation, it is kept.
        try remember(1, in: cache)
        #expect(cache.user(for: token(1)) != nil)
    }

    @Test func aReaderSeeingAnOlderGenerationIsRefusedWithoutEmptyingTheCache() throws {
        let cache = cache()
        feed.standingGeneration = 5
        try remember(1, in: cache)
        // A thread that loaded the generation before a change it has not seen yet.
        feed.standingGeneration = 4
        #expect(cache.user(for: token(1)) == nil)
        feed.standingGeneration = 5
        #expect(cache.user(for: token(1)) != nil, "an older generation emptied the cache")
        #expect(flushes() == "portico_standing_cache_flushes_total 0")
    }

    @Test func aNewGenerationEmptiesTheCache() throws {
        let cache = cache()
        feed.standingGeneration = 5
        try remember(1, in: cache)
        try remember(2, in: cache)
        feed.standingGeneration = 6
        #expect(cache.user(for: token(1)) == nil)
        #expect(cache.user(for: token(2)) == nil, "an entry of generation 5 was answered in generation 6")
        #expect(flushes() == "portico_standing_cache_flushes_total 1")
        try remember(2, in: cache)
        #expect(cache.user(for: token(2)) != nil)
    }

    @Test func nothingIsReadOrKeptWhileTheFeedCannotVouch() throws {
        let cache = cache()
        try remember(1, in: cache)
        feed.standingGeneration = nil
        #expect(cache.user(for: token(1)) == nil)
        #expect(cache.generationBeforeRead() == nil)
    }
}
