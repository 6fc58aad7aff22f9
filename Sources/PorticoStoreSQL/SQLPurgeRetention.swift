import Foundation

/// How long expired rows are kept before a purge takes them, on every backend.
public enum SQLPurgeRetention {
    /// How many refresh families one purge looks at.
    public static let familySlice = 10_000

    /// How long a redeemed code is kept past its expiry, so that a late replay still finds it
    /// and revokes what it issued.
    public static let consumedCode: TimeInterval = 3600

    /// How long a refresh family is kept past its current token's expiry or its revocation
    /// (and the hash of a token minted before tokens named their family past that token's
    /// expiry), so that presenting a token reports "expired", "revoked" or "reused" rather than
    /// "unknown".
    public static let refreshFamily: TimeInterval = 86_400

    /// How many days of apps' daily sign-in counts are kept: the console charts 30, and a
    /// quarter lets an operator look further back in the database.
    public static let signInDays = 90
}
