import Foundation

/// Lifetimes of what the provider issues (DESIGN, "Tokens"), part of ``ProviderConfiguration``.
///
/// The defaults are the DESIGN's; embedders and tests change them to see an expiry happen
/// without waiting for it.
public struct TokenLifetimes: Sendable, Equatable {
    /// Authorization codes: 60 s.
    public var authorizationCode: TimeInterval = 60
    /// Access tokens: 1 hour.
    public var accessToken: TimeInterval = 3600
    /// ID tokens: as long as access tokens.
    public var idToken: TimeInterval = 3600
    /// Refresh tokens: 30 days, renewed on every rotation.
    public var refreshToken: TimeInterval = 30 * 24 * 3600
    /// How long a rotated refresh token may be presented again by its client and get a fresh
    /// successor instead of counting as reuse (a lost response must not sign anyone out).
    public var refreshReuseGrace: TimeInterval = 30
    /// Browser sessions without "keep me signed in": the cookie dies with the browser, and the
    /// server forgets the session after 12 hours without use.
    public var session: TimeInterval = 12 * 3600
    /// ...and after 24 hours in any case, however busy: the password is asked again daily.
    public var sessionMaximum: TimeInterval = 24 * 3600
    /// Persistent sessions ("keep me signed in"): 30 days from the last use, cookie and server
    /// alike.
    public var persistentSession: TimeInterval = 30 * 24 * 3600
    /// ...but never more than 90 days after the password was entered, so a device that is used
    /// daily still asks for it now and then.
    public var persistentSessionMaximum: TimeInterval = 90 * 24 * 3600
    /// A session's use is written back (last seen, sliding expiry) at most this often, so a
    /// busy browser does not cost a database write per page.
    public var sessionTouchInterval: TimeInterval = 60
    /// Device logins (RFC 8628): how long the device and user codes work, 10 minutes.
    public var deviceCode: TimeInterval = 600
    /// Device logins: the seconds a device waits between polls unless told to slow down.
    public var devicePollInterval = 5

    /// The DESIGN's lifetimes.
    public init() {}
}
