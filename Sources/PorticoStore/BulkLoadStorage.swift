import Foundation

/// Many rows at once, for loading a database (the benchmark's seeder puts a million people and
/// a million refresh families in): the same records as the one-at-a-time inserts, sent in as
/// few statements as the backend allows.
///
/// Part of ``StoreTransaction``; see its "Implementation requirements". Like the single
/// inserts, a duplicate anywhere fails the whole call (and so, as usual, the transaction).
public protocol BulkLoadStorage {
    /// Adds `users`, as ``UserStorage/insert(_:)`` adds one.
    func insert(users: [UserRecord]) throws
    /// Starts refresh-token families, each with its first token and that token's expiry, as
    /// ``RefreshTokenStorage/insert(_:token:expiresAt:)`` starts one.
    func insert(families: [RefreshFamilyStart]) throws
}

/// A refresh-token family to start, with its first (plain) token and that token's expiry.
public struct RefreshFamilyStart: Sendable {
    /// The family.
    public var family: RefreshFamily
    /// Its first token; only its hash is stored.
    public var token: String
    /// When that token expires.
    public var expiresAt: Date

    /// A family to start.
    public init(family: RefreshFamily, token: String, expiresAt: Date) {
        self.family = family
        self.token = token
        self.expiresAt = expiresAt
    }
}
