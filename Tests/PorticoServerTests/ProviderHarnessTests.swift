import Foundation
import PorticoStore
import PorticoTesting
import Testing

/// The shared harness keeps its promises: its files go when it stops, the configuration a test
/// sets is the one the provider runs with, and a restart keeps the database.
@Suite struct ProviderHarnessTests {
    @Test func itsDatabaseDirectoryIsRemovedWhenItStops() async throws {
        let directory = try await ProviderHarness.with { harness in
            #expect(FileManager.default.fileExists(atPath: harness.directory.appendingPathComponent("portico.db").path))
            return harness.directory
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }

    @Test func itsDatabaseDirectoryIsRemovedWhenTheTestThrows() async throws {
        struct Stop: Error {}
        let seen = Locked<URL?>(nil)
        await #expect(throws: Stop.self) {
            try await ProviderHarness.with { harness in
                seen.set(harness.directory)
                throw Stop()
            }
        }
        let directory = try #require(seen.get())
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }

    @Test func theClockAndConfigurationAreTheProvidersAndARestartKeepsTheData() async throws {
        let clock = TestClock()
        clock.advance(by: 3600)
        try await ProviderHarness.with(clock: clock, configuration: .testing { $0.metrics = true }) { harness in
            #expect(harness.configuration.metrics)
            #expect(try await harness.get("/metrics").status == 200)
            let user = try harness.addUser()
            let client = try harness.addConfidentialClient(introspection: true)
            let code = try harness.issueCode(for: client, user: user, scopes: ["openid"])
            let tokens = try await harness.redeem(code, client: .of(client))
            let accessToken = try #require(tokens.string("access_token"))
            let claims = try await harness.introspect(accessToken, client: .of(client)).json
            // Issued by the harness clock, an hour ahead of the system's.
            let issuedAt = try #require(claims["iat"]?.doubleValue)
            #expect(issuedAt > Date().addingTimeInterval(1800).timeIntervalSince1970)

            try await harness.restart()
            #expect(try harness.store.user(id: user.id) != nil)
            #expect(try await harness.get("/healthz").status == 200)
        }
    }
}

/// A value tests and closures can share.
private final class Locked<Value: Sendable>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func get() -> Value { lock.withLock { value } }
    func set(_ newValue: Value) { lock.withLock { value = newValue } }
}
