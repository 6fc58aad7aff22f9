import Foundation
import PorticoStore
import Synchronization

/// Lifetimes of what the provider issues (DESIGN, "Tokens"); part of the public
/// ``ProviderConfiguration`` so that embedders and tests can shorten them.
public struct TokenLifetimes: Sendable {
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
    /// Device logins (RFC 8628): how long the device and user codes work, 10 minutes.
    public var deviceCode: TimeInterval = 600
    /// Device logins: the seconds a device waits between polls unless told to slow down.
    public var devicePollInterval = 5
    /// ...but never more than 90 days after the password was entered, so a device that is used
    /// daily still asks for it now and then.
    public var persistentSessionMaximum: TimeInterval = 90 * 24 * 3600
    /// A session's use is written back (last seen, sliding expiry) at most this often, so a
    /// busy browser does not cost a database write per page.
    public var sessionTouchInterval: TimeInterval = 60

    /// The DESIGN's lifetimes.
    public init() {}
}

/// What every endpoint needs: the issuer, the store, the keys, the password hasher and a clock.
///
/// One instance per running provider, shared by every HTTP thread; everything in it is
/// immutable or synchronized, so handlers read it without locks of their own.
final class ProviderContext: Sendable {
    /// The store every node shares.
    let store: any Store
    /// Parsed signing keys and the JWKS document.
    let keys: KeyRing
    /// Argon2id hashing of passwords.
    let passwords: PasswordHasher
    /// Token and session lifetimes.
    let lifetimes: TokenLifetimes
    /// The clock; tests may pin it.
    let now: @Sendable () -> Date
    /// Delivers mail to people (password-reset links).
    let mailer: any Mailer
    /// Registered clients, cached for a few seconds for the back-channel endpoints.
    let clients: ClientCache
    /// Counters for operators (tokens, errors, sign-ins); exposed only with `--metrics`.
    let metrics: ProviderMetrics
    private let issuerValue: Mutex<String>

    init(
        issuer: String, store: any Store, keys: KeyRing, passwords: PasswordHasher = PasswordHasher(),
        lifetimes: TokenLifetimes = TokenLifetimes(), now: @escaping @Sendable () -> Date = { Date() },
        mailer: any Mailer = OutboxMailer(directory: "./portico-data/outbox"),
        metrics: ProviderMetrics = ProviderMetrics()
    ) {
        self.issuerValue = Mutex(issuer)
        self.store = store
        self.keys = keys
        self.passwords = passwords
        self.lifetimes = lifetimes
        self.now = now
        self.mailer = mailer
        self.clients = ClientCache(store: store)
        self.metrics = metrics
    }

    /// The issuer identifier (`iss`), without a trailing slash.
    var issuer: String {
        issuerValue.withLock { $0 }
    }

    /// Sets the issuer once the port is known (a server started on port 0 learns it late).
    func setIssuer(_ issuer: String) {
        issuerValue.withLock { $0 = issuer }
    }

    /// Whether cookies must be `Secure`: when people reach the provider over https.
    var usesHTTPS: Bool {
        issuer.lowercased().hasPrefix("https://")
    }
}
