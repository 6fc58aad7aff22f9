import Foundation
import PorticoServer
import PorticoStore
import Testing

@testable import PorticoKit

/// Two processes of one app on one token directory refresh once, not twice.
@Suite(.serialized)
struct FileStoreLockTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: DemoLogoutTests.demo.path)))
    func twoProcessesWithAnExpiredTokenRefreshOnce() async throws {
        try await KitHarness.with { harness in
            let person = try harness.addUser()
            let client = try harness.addPublicClient()
            let config = harness.directory.appendingPathComponent("config")
            let store = FileTokenStore(directory: config.appendingPathComponent("portico-demo"))
            let manager = try await harness.signIn(person, client: client, store: store, scopes: [.openID, .profile])
            try expireAccessToken(of: manager)
            let first = try #require(try store.grant(for: manager.storeKey)?.refreshToken)

            // Several `portico-demo token` at once, as when an app's CLI runs in two shells.
            let processes = try (0..<4).map { _ -> (Process, Pipe) in
                let process = Process()
                process.executableURL = DemoLogoutTests.demo
                process.arguments = ["--issuer", harness.issuer.absoluteString, "--client-id", client.id, "token"]
                var environment = ProcessInfo.processInfo.environment
                environment["XDG_CONFIG_HOME"] = config.path
                process.environment = environment
                let pipe = Pipe()
                process.standardOutput = pipe
                process.standardError = pipe
                try process.run()
                return (process, pipe)
            }
            var tokens: Set<String> = []
            for (process, pipe) in processes {
                let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                #expect(process.terminationStatus == 0, "\(output)")
                tokens.insert(output.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            // One refresh: every process printed the same new access token, and one rotation
            // led from the first refresh token to the stored one.
            #expect(tokens.count == 1)
            let last = try store.grant(for: manager.storeKey)?.refreshToken
            #expect(try harness.oneRotation(from: first, to: last))
        }
    }
}
