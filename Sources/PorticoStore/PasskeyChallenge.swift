import Foundation

/// A WebAuthn challenge the provider issued and has not yet seen answered: single use, five
/// minutes, kept in the database (its hash only) so that any node can finish a ceremony that
/// another node began.
public struct PasskeyChallenge: Sendable, Hashable {
    /// What the challenge is for.
    public enum Purpose: String, Sendable, Hashable {
        /// Adding a passkey to the signed-in person's account.
        case registration
        /// Signing in with a discoverable passkey (no person known yet).
        case signIn = "sign-in"
    }

    /// SHA-256 of the challenge bytes.
    public var challengeHash: [UInt8]
    /// What it is for; a challenge answers only a ceremony of its own purpose.
    public var purpose: Purpose
    /// The person a registration challenge was issued to; nil for sign-in.
    public var userID: String?
    /// When it was issued.
    public var createdAt: Date
    /// When it stops being accepted.
    public var expiresAt: Date

    /// A challenge record.
    public init(challengeHash: [UInt8], purpose: Purpose, userID: String?, createdAt: Date, expiresAt: Date) {
        self.challengeHash = challengeHash
        self.purpose = purpose
        self.userID = userID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
