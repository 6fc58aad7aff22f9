/// What a store offers a node that wants to keep access-token standings (what
/// ``BearerAccessStorage/accessTokenStanding(id:userID:clientID:issuedAt:)`` answers) in memory:
/// a number that changes whenever a committed change may have altered any of them.
///
/// An optional capability: a store that cannot tell every process's changes apart (SQLite, whose
/// admin commands are a second process writing the same file) does not conform, and then
/// nothing may be kept. The feed holds no policy: it does not know what is cached or for how
/// long; it only says when a cached answer may have gone stale.
///
/// Guarantees, for a feed that reports a generation:
/// - A change committed through this store (this process) has moved the generation before the
///   call that committed it returns.
/// - A change committed by anyone else (another node, the command-line tool) moves it within the
///   feed's delivery latency (PostgreSQL: a notification, usually milliseconds).
/// - While changes might go unreported (the feed is not connected yet, or lost its connection),
///   ``standingGeneration`` is nil; when reporting resumes, the generation has moved.
///
/// So an answer read when the generation was `g` (read *before* the read began) is current
/// for as long as the generation is still `g`.
public protocol StandingChangeFeed: AnyObject, Sendable {
    /// Starts following changes, if the feed has not yet (idempotent, never waits). Call it
    /// before serving: a change committed through a connection that was busy when following
    /// began may reach this process only with another process's latency.
    func followStandingChanges()

    /// The current generation, or nil while changes may go unreported (not following yet, or
    /// reconnecting). One atomic load: cheap enough for every request.
    var standingGeneration: UInt64? { get }
}
