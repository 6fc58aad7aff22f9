import Foundation
import PorticoServer
import Testing

/// What a provider refuses to start with.
@Suite struct ProviderStartTests {
    /// Without the dummy hash, `/login` would answer an unknown address at once and a known one
    /// after Argon2id: a timing oracle. So settings that cannot hash stop the start.
    @Test func passwordSettingsThatCannotHashStopTheStart() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("portico-start-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Argon2 needs at least 8 KiB per lane.
        let store = try openStore(url: "sqlite:\(directory.path)/portico.db", longRunning: true)
        defer { store.close() }
        let configuration = ProviderConfiguration(
            port: 0, logRequests: false,
            passwordHashing: PasswordHashingSettings(memoryKiB: 1, iterations: 1, parallelism: 1))
        #expect(throws: PasswordHashingError.self) {
            _ = try IdentityProvider(configuration: configuration, store: store)
        }
    }
}
