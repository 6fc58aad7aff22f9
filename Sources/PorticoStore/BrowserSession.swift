import Foundation

/// A signed-in browser: what the session cookie stands for.
///
/// The cookie's value is never stored; ``hashedID`` is its SHA-256 (base64url), which can be
/// listed and logged but not presented. Lookups take the cookie value and hash it themselves.
public struct BrowserSession: Sendable, Hashable {
    /// SHA-256 of the session id, base64url; the reference for ``StoreTransaction/deleteSession(hashedID:)``.
    public let hashedID: String
    /// Who is signed in.
    public var userID: String
    /// When the session began.
    public var createdAt: Date
    /// When it ends unless extended.
    public var expiresAt: Date
    /// When the browser last used it.
    public var lastSeenAt: Date
    /// When the person last entered a password: the OIDC `auth_time`.
    public var authTime: Date
    /// "Keep me signed in": a persistent cookie and a long expiry.
    public var isPersistent: Bool
    /// The browser's User-Agent, for the account page's list of devices.
    public var userAgent: String?
    /// The address it signed in from, likewise.
    public var ipAddress: String?

    /// A session for the cookie value `token`; only its hash is kept.
    public init(
        token: String, userID: String, createdAt: Date = Date(), expiresAt: Date, lastSeenAt: Date? = nil,
        authTime: Date? = nil, isPersistent: Bool = false, userAgent: String? = nil, ipAddress: String? = nil
    ) {
        self.init(
            hashedID: SecretHash.reference(token), userID: userID, createdAt: createdAt, expiresAt: expiresAt,
            lastSeenAt: lastSeenAt ?? createdAt, authTime: authTime ?? createdAt, isPersistent: isPersistent,
            userAgent: userAgent, ipAddress: ipAddress)
    }

    /// A session as stored (backends only).
    public init(
        hashedID: String, userID: String, createdAt: Date, expiresAt: Date, lastSeenAt: Date, authTime: Date,
        isPersistent: Bool, userAgent: String?, ipAddress: String?
    ) {
        self.hashedID = hashedID
        self.userID = userID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.lastSeenAt = lastSeenAt
        self.authTime = authTime
        self.isPersistent = isPersistent
        self.userAgent = userAgent
        self.ipAddress = ipAddress
    }
}
