import Foundation

/// A sign-up waiting for its e-mail address to be confirmed: what the person typed at
/// `/signup`, kept until they follow the mailed link (which creates the account) or it expires.
///
/// Like ``PasswordReset``, the link's token is never stored: ``hashedToken`` is its SHA-256
/// (base64url), so a copy of the database cannot confirm anyone's sign-up. The password is kept
/// only as its Argon2id hash. One address has at most one pending sign-up: a newer one replaces
/// the older, whose link then stops working.
public struct PendingSignup: Sendable, Hashable {
    /// SHA-256 of the link's token, base64url.
    public let hashedToken: String
    /// The address as typed; compared case-insensitively.
    public var email: String
    /// The display name.
    public var name: String
    /// The postal code, if given.
    public var postalCode: String?
    /// The Argon2id hash of the chosen password (a PHC string).
    public var passwordHash: String
    /// When the sign-up was made.
    public var createdAt: Date
    /// When its link stops working.
    public var expiresAt: Date

    /// A pending sign-up for the plain `token` (as mailed); only its hash is kept.
    public init(
        token: String, email: String, name: String, postalCode: String? = nil, passwordHash: String,
        createdAt: Date = Date(), expiresAt: Date
    ) {
        self.init(
            hashedToken: SecretHash.reference(token), email: email, name: name, postalCode: postalCode,
            passwordHash: passwordHash, createdAt: createdAt, expiresAt: expiresAt)
    }

    /// A pending sign-up as stored (backends only).
    public init(
        hashedToken: String, email: String, name: String, postalCode: String?, passwordHash: String,
        createdAt: Date, expiresAt: Date
    ) {
        self.hashedToken = hashedToken
        self.email = email
        self.name = name
        self.postalCode = postalCode
        self.passwordHash = passwordHash
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
