import Foundation

/// The chain of refresh tokens that descends from one authorization.
///
/// Each rotation replaces the family's current token; reusing a replaced token revokes the
/// whole family (OAuth 2.1 §4.3.1), which is why revocation is a flag on the family, not on
/// tokens. The store keeps the token state in the family's own row (see ``RefreshToken``).
public struct RefreshFamily: Sendable, Hashable {
    /// The family's identifier.
    public var id: String
    /// The client the tokens belong to.
    public var clientID: String
    /// The person who authorized it.
    public var userID: String
    /// The scopes of the original grant; refreshes may narrow but not widen them.
    public var scopes: [String]
    /// The original `auth_time`, carried into refreshed ID tokens.
    public var authTime: Date
    /// When the authorization happened.
    public var createdAt: Date
    /// When it was revoked; nil while it may still refresh.
    public var revokedAt: Date?

    /// Whether the family has been revoked.
    public var isRevoked: Bool { revokedAt != nil }

    /// A family ready to insert.
    public init(
        id: String = RecordIdentifier.timeOrdered(), clientID: String, userID: String, scopes: [String], authTime: Date,
        createdAt: Date = Date(), revokedAt: Date? = nil
    ) {
        self.id = id
        self.clientID = clientID
        self.userID = userID
        self.scopes = scopes
        self.authTime = authTime
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }
}
