import Foundation

/// A refresh family as stored with its token columns: what the provider needs to tell what a
/// presented token is to it (current, the one the last rotation replaced, or older).
public struct RefreshTokenState: Sendable, Hashable {
    /// The family.
    public var family: RefreshFamily
    /// SHA-256 of the current token; nil when the family has none (a migration found none live).
    public var currentTokenHash: [UInt8]?
    /// When the current token was issued.
    public var issuedAt: Date
    /// When the current token stops being usable if it is not rotated first.
    public var expiresAt: Date
    /// SHA-256 of the token the last rotation replaced; nil before the first rotation.
    public var previousTokenHash: [UInt8]?
    /// When the last rotation happened; nil before the first.
    public var rotatedAt: Date?

    /// A state as a backend read it.
    public init(
        family: RefreshFamily, currentTokenHash: [UInt8]?, issuedAt: Date, expiresAt: Date,
        previousTokenHash: [UInt8]?, rotatedAt: Date?
    ) {
        self.family = family
        self.currentTokenHash = currentTokenHash
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.previousTokenHash = previousTokenHash
        self.rotatedAt = rotatedAt
    }
}
