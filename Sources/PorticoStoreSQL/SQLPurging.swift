import Foundation

/// The part of purging that differs by engine; the deletes themselves are written once
/// (``SQLTransaction``'s `purgeExpired(now:)`).
///
/// Refresh families are purged a slice at a time because no index orders them by expiry:
/// keeping one would cost every rotation more index writes (the expiry changes with each). How
/// a slice is walked, and how several nodes take turns, is each engine's own.
public protocol SQLPurging {
    /// Whether this transaction may purge now. SQLite: always (one writer). PostgreSQL: only
    /// the node that takes a transaction-scoped advisory lock without waiting, so that nodes do
    /// not run the same deletes at once.
    func takePurgeTurn() throws -> Bool

    /// Deletes the families of the next slice whose current token expired before `cutoff`,
    /// that were revoked before it, or that have had no token since the version-4 migration
    /// and began before it; returns how many.
    func purgeRefreshFamilies(before cutoff: Date) throws -> Int
}
