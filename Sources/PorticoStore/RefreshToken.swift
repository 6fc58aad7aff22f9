import Foundation
import PorticoCrypto

/// A refresh token as the store knows it: which family it names and whether it is still the
/// family's current token.
///
/// A family keeps only two token hashes — its current token's and the one the last rotation
/// replaced — so a rotation rewrites one row instead of adding one. Tokens carry their family's
/// id before a dot (`<family id>.<256 random bits>`): the store finds the family by primary key,
/// and a token that names a family but matches neither hash is an older token of that family
/// being used again (the id is 128 random bits that only ever travel inside that family's
/// tokens, so nobody else can name it).
public struct RefreshToken: Sendable, Hashable {
    /// SHA-256 of the token, base64url.
    public let hashedToken: String
    /// The family it belongs to.
    public var familyID: String
    /// When it was issued (for a replaced token: when the family's current token was).
    public var issuedAt: Date
    /// When the family's current token stops being usable if it is not rotated first.
    public var expiresAt: Date
    /// When it was exchanged for its successor; nil while it is the family's current token.
    public var rotatedAt: Date?

    /// A token as a backend found it.
    public init(hashedToken: String, familyID: String, issuedAt: Date, expiresAt: Date, rotatedAt: Date?) {
        self.hashedToken = hashedToken
        self.familyID = familyID
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.rotatedAt = rotatedAt
    }

    /// A new token for the family `familyID`: its id, a dot, and 256 random bits.
    public static func mint(familyID: String) -> String {
        familyID + "." + SecureRandom.token()
    }

    /// The family id a token names, or nil for a token without one (minted before tokens
    /// carried it; the store finds those through the hashes it kept of them).
    public static func familyID(of token: String) -> Substring? {
        guard let dot = token.firstIndex(of: "."), dot != token.startIndex else { return nil }
        return token[..<dot]
    }
}
