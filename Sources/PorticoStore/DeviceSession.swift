import Foundation

/// A Native SSO session on one device (OpenID Connect Native SSO for Mobile Apps 1.0): what a
/// `device_secret` stands for, and the `sid` of the ID tokens issued in it.
///
/// The secret itself is never stored, only its SHA-256 (``secretHashReference``). The session
/// is bound to the person, the SSO group of the app that started it, and the browser session
/// the person signed in with, so that signing that browser out ends it; it stays alive while
/// one of the refresh families issued in it does (``StoreTransaction/hasLiveRefreshFamily(deviceSessionID:now:)``).
public struct DeviceSession: Sendable, Hashable {
    /// The session's identifier: the ID tokens' `sid`.
    public let id: String
    /// SHA-256 of the device secret, base64url.
    public let secretHashReference: String
    /// The person signed in.
    public var userID: String
    /// The `--sso-group` of the apps that may share it.
    public var ssoGroup: String
    /// The browser session the person signed in with, when there was one.
    public var browserSessionHashedID: String?
    /// The scopes granted when it began.
    public var scopes: [String]
    /// When the person last entered a password: the `auth_time` of tokens issued in it.
    public var authTime: Date
    /// When it began.
    public var createdAt: Date
    /// When it was revoked (device secret revoked, signed out); nil while alive.
    public var revokedAt: Date?

    /// Whether it has been revoked.
    public var isRevoked: Bool { revokedAt != nil }

    /// A session for the device secret `secret`; only its hash is kept.
    public init(
        id: String = RecordIdentifier.random(), secret: String, userID: String, ssoGroup: String,
        browserSessionHashedID: String? = nil, scopes: [String], authTime: Date, createdAt: Date = Date(),
        revokedAt: Date? = nil
    ) {
        self.init(
            id: id, secretHashReference: SecretHash.reference(secret), userID: userID, ssoGroup: ssoGroup,
            browserSessionHashedID: browserSessionHashedID, scopes: scopes, authTime: authTime,
            createdAt: createdAt, revokedAt: revokedAt)
    }

    /// A session as stored (backends only).
    public init(
        id: String, secretHashReference: String, userID: String, ssoGroup: String, browserSessionHashedID: String?,
        scopes: [String], authTime: Date, createdAt: Date, revokedAt: Date?
    ) {
        self.id = id
        self.secretHashReference = secretHashReference
        self.userID = userID
        self.ssoGroup = ssoGroup
        self.browserSessionHashedID = browserSessionHashedID
        self.scopes = scopes
        self.authTime = authTime
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }
}
