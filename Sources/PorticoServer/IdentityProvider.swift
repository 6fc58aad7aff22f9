import Foundation
import PorticoHTTP
import PorticoStore

/// The identity provider: loads the keys from the store it is given, assembles every endpoint
/// onto one router and runs the HTTP server.
///
/// One value owns the lifetime of the server so that the CLI and the tests start and stop
/// Portico the same way.
public final class IdentityProvider: Sendable {
    /// Worker threads with a remote store (PostgreSQL): four per core, since its handlers wait
    /// on round trips; `portico serve` opens as many database connections by default.
    public static var remoteStoreWorkerThreads: Int { 4 * ServerConfiguration.processorCount }

    /// The settings this provider was started with.
    public let configuration: ProviderConfiguration
    private let server: HTTPServer
    let context: ProviderContext
    /// Deletes expired codes, sessions, device codes and revocations every
    /// `configuration.purgeInterval`, so the
    /// tables that every request reads stay small.
    private let purger: BackgroundPurger
    /// Re-reads the signing keys every `configuration.keyRefreshInterval`, so a rotation made
    /// by the CLI while the server runs takes effect without a restart.
    private let keyRefresher: KeyRingRefresher
    /// Delivers the outbox: back-channel logout tokens (``BackChannelLogoutDeliverer``).
    private let outbox: OutboxDispatcher

    /// Makes the first signing keys in `store` if there are none, and builds the routes; nothing
    /// listens until ``start()``.
    ///
    /// The caller opens (and migrates) the store and picks its backend (the `portico` command
    /// does so by the database URL), so the provider depends on the storage contract alone. The
    /// provider owns the store from here on: ``shutdown()`` closes it.
    public init(configuration: ProviderConfiguration, store: any Store) throws {
        self.configuration = configuration
        let encryption: SigningKeyEncryption
        // The caller still owns the store when the provider cannot start.
        encryption = try SigningKeyEncryption.load(keyFile: configuration.keyFile, store: store)
        let keys = try KeyRing(store: store, encryption: encryption, now: configuration.clock())
        let registry = MetricsRegistry()
        context = ProviderContext(
            issuer: configuration.issuer ?? "http://\(configuration.host):\(configuration.port)", store: store,
            keys: keys, passwords: PasswordHasher(settings: configuration.passwordHashing),
            lifetimes: configuration.lifetimes, now: configuration.clock,
            mailer: configuration.mailer
                ?? OutboxMailer(directory: configuration.effectiveOutboxDirectory(beside: store.location)),
            metrics: ProviderMetrics(registry: registry), requiresDPoPNonce: configuration.requiresDPoPNonce,
            allowsOpenRegistration: configuration.allowsOpenRegistration,
            allowsLoopbackCallbacks: configuration.allowsLoopbackCallbacks, requiresPAR: configuration.requiresPAR,
            documentFetcher: OutboundHTTPClient(
                policy: OutboundAddressPolicy(
                    allowsLoopback: configuration.allowsLoopbackClientMetadata,
                    loopbackOption: "--allow-loopback-client-metadata"),
                connectTimeout: min(.seconds(2), configuration.documentFetchTimeout),
                timeout: configuration.documentFetchTimeout,
                trustedCertificatesFile: configuration.outboundTrustedCertificatesFile))
        let router = Router()
        ProtocolRoutes.register(on: router, context: context)
        try PageRoutes.register(on: router, environment: PageEnvironment(context), demo: configuration.demo)
        let services = ProviderAppServices(context)
        for app in configuration.apps { app.register(on: router, services: services) }
        if configuration.metrics { MetricsEndpoint(registry: registry).register(on: router) }
        let logout = BackChannelLogoutDeliverer(
            store: store, keys: keys, issuer: context.issuerIdentifier,
            subjects: PairwiseSubjects(store: store, clients: context.clients),
            settings: configuration.backchannelLogout,
            addresses: OutboundAddressPolicy(allowsLoopback: configuration.allowsLoopbackCallbacks),
            metrics: BackChannelLogoutMetrics(registry: registry), now: configuration.clock)
        let signals = SharedSignalsRoutes.register(
            on: router, context: context, settings: configuration.backchannelLogout,
            addresses: OutboundAddressPolicy(allowsLoopback: configuration.allowsLoopbackCallbacks),
            onError: { message in FileHandle.standardError.write(Data("portico: \(message)\n".utf8)) })
        outbox = OutboxDispatcher(
            store: store, handlers: [logout, signals], settings: configuration.backchannelLogout,
            now: configuration.clock,
            onError: { message in FileHandle.standardError.write(Data("portico: \(message)\n".utf8)) })
        var http = ServerConfiguration()
        http.host = configuration.host
        http.port = configuration.port
        if let threads = configuration.threads { http.threads = threads }
        // Handlers on a remote store spend much of their time waiting on the network; more
        // workers keep the cores busy meanwhile (the pool's default size follows, see `serve`).
        if store.isRemote { http.workerThreads = Self.remoteStoreWorkerThreads }
        http.logRequests = configuration.logRequests
        http.allowedHosts = HostAllowList(configuration.answeredHosts)
        http.trustedProxies = configuration.trustedProxies
        http.clientAddressHeader = configuration.clientAddressHeader
        server = HTTPServer(configuration: http, router: router, metrics: configuration.metrics ? registry : nil)
        purger = BackgroundPurger(
            store: store, interval: configuration.purgeInterval,
            onError: { error in
                FileHandle.standardError.write(Data("portico: purging expired records failed: \(error)\n".utf8))
            })
        keyRefresher = KeyRingRefresher(
            keys: keys, store: store, interval: configuration.keyRefreshInterval, now: configuration.clock,
            onError: { error in
                FileHandle.standardError.write(Data("portico: reloading signing keys failed: \(error)\n".utf8))
            })
    }

    /// Binds the port and starts answering.
    public func start() throws {
        try server.start()
        if configuration.issuer == nil { context.setIssuer("http://\(configuration.host):\(server.port)") }
        do {
            for app in configuration.apps { try app.prepare() }
        } catch {
            server.shutdown()
            throw error
        }
        outbox.start()
    }

    /// The port actually bound (useful when the configuration asked for port 0).
    public var port: UInt16 { server.port }

    /// The issuer identifier people and apps reach this provider at.
    public var issuer: String { context.issuer }

    /// Blocks until SIGINT or SIGTERM, then finishes in-flight requests and stops.
    public func runUntilTerminated() {
        server.runUntilTerminated()
        stopBackgroundWork()
        context.store.close()
    }

    /// Stops accepting, lets in-flight requests finish, stops, and closes the store.
    public func shutdown() {
        server.shutdown()
        stopBackgroundWork()
        context.store.close()
    }

    /// Stops the purger and the key refresher and waits (10 s at most) for a run under way:
    /// closing the store under one, or exiting the process while one still reads keys through
    /// OpenSSL, once crashed a stopped node in `_dl_fini`.
    private func stopBackgroundWork() {
        outbox.stopAndWait(timeout: configuration.backchannelLogout.requestTimeout + .seconds(2))
        let purger = purger
        let keyRefresher = keyRefresher
        let finished = DispatchSemaphore(value: 0)
        Task.detached {
            await purger.stopAndWait()
            await keyRefresher.stopAndWait()
            finished.signal()
        }
        _ = finished.wait(timeout: .now() + 10)
    }
}
