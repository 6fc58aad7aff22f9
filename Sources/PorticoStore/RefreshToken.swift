import Foundation

/// One refresh token of a ``RefreshFamily``.
///
/// Only the token's SHA-256 is stored. A token is current while ``rotatedAt`` is nil; rotation
/// stamps it and records the hash of its successor.
public struct RefreshToken: Sendable, Hashable {
    /// SHA-256 of the token, base64url.
    public let hashedToken: String
    /// The family it belongs to.
    public var familyID: String
    /// When it was issued.
    public var createdAt: Date
    /// When it stops being usable even if never rotated.
    public var expiresAt: Date
    /// When it was exchanged for its successor; nil while current.
    public var rotatedAt: Date?
    /// SHA-256 (base64url) of the token that replaced it.
    public var successorHash: String?

    /// A token ready to insert for the plain `token`; only its hash is kept.
    public init(token: String, familyID: String, createdAt: Date = Date(), expiresAt: Date) {
        self.init(
            hashedToken: SecretHash.reference(token), familyID: familyID, createdAt: createdAt, expiresAt: expiresAt,
            rotatedAt: nil, successorHash: nil)
    }

    /// A token as stored (backends only).
    init(
        hashedToken: String, familyID: String, createdAt: Date, expiresAt: Date, rotatedAt: Date?,
        successorHash: String?
    ) {
        self.hashedToken = hashedToken
        self.familyID = familyID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.rotatedAt = rotatedAt
        self.successorHash = successorHash
    }
}
