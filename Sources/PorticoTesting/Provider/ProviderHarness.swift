import Foundation
import PorticoDemo
import PorticoServer
import PorticoStore
import Synchronization

/// A real Portico provider for tests: `IdentityProvider` as `portico serve` builds it (the
/// store opened for a long-running process and handed over), on an ephemeral loopback port, with its own database in a temporary directory (removed when
/// it stops), a clock the test moves, and a configuration the test may adjust.
///
/// It also holds a second handle on the same database, ``store``, for making people and apps
/// and for checking what the provider wrote; and helpers that talk to the provider over real
/// HTTP (``request(_:_:form:client:headers:rawBody:)``, ``TestBrowser``).
///
/// Start one with ``with(database:clock:configuration:_:)``, which always stops it.
public final class ProviderHarness: Sendable {
    /// Cheap Argon2id settings for tests only; the provider's default stays the DESIGN's.
    public static let passwordHashing = PasswordHashingSettings(memoryKiB: 64, iterations: 1, parallelism: 1)
    /// The password ``addUser(email:name:postalCode:password:disabled:settings:)`` gives people.
    public static let defaultPassword = "correct horse"
    /// The address ``addUser(email:name:postalCode:password:disabled:settings:)`` gives people.
    public static let defaultEmail = "ann@example.com"

    /// The temporary directory holding the database (and the outbox).
    public let directory: URL
    /// The database this harness runs on.
    public let database: TestDatabase
    /// The `--database` value of this harness's database, for the CLI.
    public var databaseURL: String { database.url(in: directory).description }
    /// The configuration the provider was started with (after the test's adjustments).
    public let configuration: ProviderConfiguration
    /// The provider's clock.
    public let clock: TestClock
    /// A second handle on the provider's database.
    public let store: any Store
    private let running: Mutex<IdentityProvider>

    private init(database: TestDatabase, clock: TestClock, configuration: ProviderConfiguration) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("portico-test-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.database = database
        self.clock = clock
        let url = database.url(in: directory)
        var configuration = configuration
        configuration.port = 0
        configuration.clock = { clock.now }
        if case .postgres = database {
            if configuration.keyFile == nil {
                configuration.keyFile = directory.appendingPathComponent("signing.key").path
            }
            // A PostgreSQL store has no folder of its own, and the default outbox would be
            // `./portico-data/outbox` of whoever runs the tests: mail of earlier runs there
            // would answer this run's waits for a message.
            if configuration.outboxDirectory == nil && configuration.mailer == nil {
                configuration.outboxDirectory = directory.appendingPathComponent("outbox").path
            }
        }
        self.configuration = configuration
        let provider: IdentityProvider
        do {
            provider = try Self.startProvider(configuration, on: database, in: directory)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        do {
            store = try database.open(url, longRunning: false)
        } catch {
            provider.shutdown()
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        running = Mutex(provider)
    }

    /// Starts a provider, runs `body` against it, and stops it whatever happens.
    ///
    /// The provider starts on a thread of its own: making its first signing keys (RSA above
    /// all) would otherwise occupy the cooperative pool that its async handlers need.
    ///
    /// - Parameters:
    ///   - database: which database to run on.
    ///   - clock: the provider's clock; a fresh ``TestClock`` (real time) unless given.
    ///   - configuration: what the provider runs with, ``ProviderConfiguration/testing(_:)``
    ///     unless given (adjust lifetimes, purge and key refresh intervals, metrics, demo,
    ///     mailer, host… there); its port, database and clock are the harness's.
    @discardableResult
    public static func with<Value>(
        database: TestDatabase = .sqlite, clock: TestClock = TestClock(),
        configuration: ProviderConfiguration = .testing(), _ body: (ProviderHarness) async throws -> Value
    ) async throws -> Value {
        let harness = try await onThread {
            try ProviderHarness(database: database, clock: clock, configuration: configuration)
        }
        do {
            let result = try await body(harness)
            await harness.stop()
            return result
        } catch {
            await harness.stop()
            throw error
        }
    }

    /// The running provider.
    public var provider: IdentityProvider { running.withLock { $0 } }
    /// The port the provider listens on.
    public var port: UInt16 { provider.port }
    /// `http://HOST:PORT`, where the provider answers.
    public var base: String { "http://\(configuration.host):\(port)" }
    /// The provider's issuer identifier.
    public var issuer: String { provider.issuer }
    /// With `demo` set, once started: the demo app's URL and the demo person's sign-in.
    public var demo: DemoCredentials? {
        provider.configuration.apps.lazy.compactMap { $0 as? DemoApp }.first?.credentials
    }
    /// Where the provider writes mail unless the configuration set a mailer.
    public var outbox: URL { URL(fileURLWithPath: configuration.effectiveOutboxDirectory(beside: store.location)) }

    /// Stops the provider and starts a new one with the same configuration on the same
    /// database (a new port), as an operator restarting `portico serve` would.
    public func restart() async throws {
        let configuration = configuration
        try await Self.onThread {
            try self.running.withLock { provider in
                provider.shutdown()
                provider = try Self.startProvider(configuration, on: self.database, in: self.directory)
            }
        }
    }

    /// A provider on its own handle of the database (it closes it when it stops), listening.
    private static func startProvider(
        _ configuration: ProviderConfiguration, on database: TestDatabase, in directory: URL
    ) throws -> IdentityProvider {
        let url = database.url(in: directory)
        // `demo` serves the demo app as `portico serve --demo` does (a new one on each start).
        var configuration = configuration
        if configuration.demo, !configuration.apps.contains(where: { $0 is DemoApp }) {
            configuration.apps.append(DemoApp())
        }
        let provider = try IdentityProvider(
            configuration: configuration, store: try database.open(url, longRunning: true))
        try provider.start()
        return provider
    }

    /// Stops the server (shutdown blocks, so on its own thread) and removes the files.
    private func stop() async {
        await Self.onThread {
            self.provider.shutdown()
            self.store.close()
            try? FileManager.default.removeItem(at: self.directory)
        }
    }

    /// Runs blocking `work` on a new thread, off the cooperative pool.
    static func onThread<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
            Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
        }
    }

    static func onThread(_ work: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                work()
                continuation.resume()
            }
        }
    }
}
