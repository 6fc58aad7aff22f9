import Foundation

/// A "forgot password" link: a single-use token mailed to a person, valid for a short time.
///
/// The token itself is never stored; ``hashedToken`` is its SHA-256 (base64url), so a copy of
/// the database cannot be used to reset anyone's password. Lookups take the presented token and
/// hash it themselves.
public struct PasswordReset: Sendable, Hashable {
    /// SHA-256 of the token, base64url.
    public let hashedToken: String
    /// Whose password the link resets.
    public var userID: String
    /// When the link was made.
    public var createdAt: Date
    /// When it stops working.
    public var expiresAt: Date
    /// When it was used; a used link never works again.
    public var usedAt: Date?

    /// A reset for the plain `token` (as mailed); only its hash is kept.
    public init(token: String, userID: String, createdAt: Date = Date(), expiresAt: Date) {
        self.init(
            hashedToken: SecretHash.reference(token), userID: userID, createdAt: createdAt, expiresAt: expiresAt,
            usedAt: nil)
    }

    /// A reset as stored (backends only).
    public init(hashedToken: String, userID: String, createdAt: Date, expiresAt: Date, usedAt: Date?) {
        self.hashedToken = hashedToken
        self.userID = userID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.usedAt = usedAt
    }
}
