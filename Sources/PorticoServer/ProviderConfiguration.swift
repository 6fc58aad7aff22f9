import Foundation
import PorticoHTTP
import PorticoStore

/// Where the identity provider listens, what it calls itself, and where it keeps its data.
///
/// The command line fills this from flags, then the `PORTICO_*` environment, then the
/// DESIGN's defaults, so that tests and embedders can build one directly.
public struct ProviderConfiguration: Sendable {
    /// The address to bind; loopback by default so a fresh install is not reachable from outside.
    public var host: String
    /// The TCP port; 0 binds an ephemeral port (tests use that).
    public var port: UInt16
    /// The issuer identifier (`iss`), without a trailing slash. When nil it is derived from
    /// host and the bound port, which is what a single local instance wants.
    public var issuer: String?
    /// The HTTP server's epoll threads (libmicrohttpd's thread pool, where requests that wait on
    /// nothing are answered); nil means one per core.
    public var threads: Int?
    /// Whether one JSON line per request goes to stderr.
    public var logRequests: Bool
    /// Whether the home page links the demo app at `/demo` (`portico serve --demo`, what `make
    /// run` starts). The app itself is PorticoDemo's, served only when it is among ``apps``; the
    /// command line's `--demo` sets both.
    public var demo: Bool
    /// Apps served beside the provider on its router (``ProviderApp``), such as the demo app;
    /// none by default.
    public var apps: [any ProviderApp] = []
    /// Argon2id parameters for new password hashes; the DESIGN's m=19456 KiB, t=2, p=1 unless
    /// changed (tests lower them to stay fast; stored hashes are upgraded at sign-in).
    public var passwordHashing: PasswordHashingSettings
    /// How often expired codes, sessions, device codes and revocations are deleted; a minute by
    /// default (tests shorten it to watch a purge happen).
    public var purgeInterval: Duration
    /// Where ``OutboxMailer`` writes password-reset mail; nil means `outbox` next to the SQLite
    /// database (`portico-data/outbox` by default). Ignored when ``mailer`` is set.
    public var outboxDirectory: String?
    /// How mail is delivered; nil means an ``OutboxMailer`` writing to ``outboxDirectory``.
    public var mailer: (any Mailer)?
    /// The clock every expiry and rate limit is measured against; the system clock unless
    /// changed (tests move it forward to see a reset link or a sign-in lockout expire).
    public var clock: @Sendable () -> Date
    /// How often the signing keys are re-read, so that `portico keys rotate` (run in another
    /// process or on another node) takes effect, and retired keys past their retention are
    /// deleted; 5 seconds by default.
    public var keyRefreshInterval: Duration
    /// Whether `GET /metrics` serves Prometheus metrics (to loopback clients only); off by
    /// default, as in Keycloak, because metrics describe traffic and failures to whoever reads
    /// them (`portico serve --metrics`, `PORTICO_METRICS=1`).
    public var metrics: Bool
    /// Lifetimes of codes, tokens and sessions, and the refresh-token reuse grace; the DESIGN's
    /// unless changed (tests shorten them to watch an expiry).
    public var lifetimes: TokenLifetimes
    /// The key-encryption key file that seals the private signing keys in the database
    /// (`--key-file`, `PORTICO_KEY_FILE`); nil means `<database>.key` beside an SQLite database,
    /// made on the first start. Several nodes on one database are given the same file.
    public var keyFile: String?
    /// Host names answered besides the issuer's (`--allowed-host`); any other `Host` gets 421,
    /// so that a DNS-rebinding page cannot script this server.
    public var allowedHosts: [String] = []
    /// Reverse proxies whose ``clientAddressHeader`` names the client (`--trusted-proxy`), for
    /// throttles, sessions and audit; nobody's by default.
    public var trustedProxies: [IPAddressRange] = []
    /// The one header those proxies write the client's address into
    /// (`--client-address-header`, `X-Forwarded-For` by default); no other is believed.
    public var clientAddressHeader: ClientAddressHeader = .xForwardedFor
    /// How back-channel logout tokens are delivered from the outbox (poll, timeout, retries);
    /// the defaults retry for a day (tests shorten the intervals).
    public var backchannelLogout = BackChannelLogoutSettings()
    /// Whether the provider's own requests to URLs that apps registered (back-channel logout
    /// URIs now; Shared Signals push endpoints, client metadata documents and `jwks_uri` later)
    /// may go to loopback addresses (`--allow-loopback-callbacks`). Off by default: an app's
    /// URL must not reach what runs on the provider's own machine. For tests and local
    /// development, whose app backends run on 127.0.0.1; private and link-local addresses are
    /// refused either way (``OutboundAddressPolicy``).
    public var allowsLoopbackCallbacks = false
    /// Whether client metadata documents (a `client_id` that is an https URL) and `jwks_uri`s
    /// may be fetched from loopback addresses (`--allow-loopback-client-metadata`): for tests
    /// only, whose document servers run on 127.0.0.1. Off by default, and independent of
    /// ``allowsLoopbackCallbacks``: any agent can make the provider fetch a document, so a
    /// server that must post to a local backend still fetches nothing local.
    public var allowsLoopbackClientMetadata = false
    /// Certificates (PEM) trusted for the provider's own https requests instead of the system's,
    /// for tests with their own certificate authority; nil (the system's) in production.
    public var outboundTrustedCertificatesFile: String? = nil
    /// How long fetching a client metadata document or a `jwks_uri` may take in all (resolving,
    /// connecting, TLS, reading); 5 seconds by default.
    public var documentFetchTimeout: Duration = .seconds(5)
    /// Whether every DPoP proof must carry a nonce of this provider's (`--dpop-nonce`, RFC 9449
    /// §8, §9): a proof without a current one is answered `use_dpop_nonce` with the nonce in
    /// `DPoP-Nonce`, which also comes with every answer to a request with a proof. The nonce is
    /// stateless (a keyed hash of the time window, from the key file), so every node on one
    /// key file checks another's without a store read.
    public var requiresDPoPNonce = false
    /// Whether `POST /oauth/register` accepts registrations without an initial access token
    /// (`serve --open-registration`); off by default, since anyone could then add apps.
    public var allowsOpenRegistration = false
    /// Whether every app must push its authorization requests (`serve --require-par`, RFC 9126
    /// §5): `/oauth/authorize` takes only `request_uri`s from `POST /oauth/par`, and discovery
    /// says `require_pushed_authorization_requests: true`. Off by default; `client add
    /// --require-par` asks it of one app.
    public var requiresPAR = false

    /// How often (seconds) a node re-reads the signing keys unless told otherwise; part of how
    /// long a rotated key waits before it signs.
    public static let defaultKeyRefreshSeconds: Double = 5

    /// The defaults of the DESIGN: `127.0.0.1:8080`, and the outbox of the default database.
    public init(
        host: String = "127.0.0.1",
        port: UInt16 = 8080,
        issuer: String? = nil,
        threads: Int? = nil,
        logRequests: Bool = true,
        demo: Bool = false,
        passwordHashing: PasswordHashingSettings = .standard,
        purgeInterval: Duration = .seconds(60),
        outboxDirectory: String? = nil,
        mailer: (any Mailer)? = nil,
        clock: @escaping @Sendable () -> Date = { Date() },
        keyRefreshInterval: Duration = .seconds(ProviderConfiguration.defaultKeyRefreshSeconds),
        metrics: Bool = false,
        lifetimes: TokenLifetimes = TokenLifetimes(),
        keyFile: String? = nil
    ) {
        self.host = host
        self.port = port
        self.issuer = issuer
        self.threads = threads
        self.logRequests = logRequests
        self.demo = demo
        self.passwordHashing = passwordHashing
        self.purgeInterval = purgeInterval
        self.outboxDirectory = outboxDirectory
        self.mailer = mailer
        self.clock = clock
        self.keyRefreshInterval = keyRefreshInterval
        self.metrics = metrics
        self.lifetimes = lifetimes
        self.keyFile = keyFile
    }

    /// The `Host` names answered: the issuer's (or the listen host's when the issuer is derived),
    /// the loopback names when that is a loopback address, and ``allowedHosts``.
    public var answeredHosts: [String] {
        let issuerHost = issuer.flatMap { URL(string: $0)?.host } ?? host
        var hosts = [issuerHost] + allowedHosts
        if ["127.0.0.1", "localhost", "::1", "[::1]"].contains(issuerHost.lowercased()) {
            // A rebinding page cannot make a browser send these names: they are this host.
            hosts += ["127.0.0.1", "localhost", "::1"]
        }
        return hosts
    }

    /// The outbox folder in effect for a store at `location`: ``outboxDirectory``, or the one
    /// next to a database file.
    public func effectiveOutboxDirectory(beside location: StoreLocation?) -> String {
        outboxDirectory ?? OutboxMailer.defaultDirectory(beside: location)
    }
}
