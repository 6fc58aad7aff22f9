import Foundation
import Testing

@testable import PorticoKit

/// `portico-demo logout` run as the real program.
struct DemoLogoutTests {
    /// The built `portico-demo` next to the test bundle.
    static var demo: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("portico-demo")
    }

    private func run(_ arguments: [String], config: URL) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = Self.demo
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = config.path
        environment["PORTICO_CLIENT_ID"] = "demo-app"
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: demo.path)))
    func logoutWithATrailingSlashForgetsTheGrantLoginStored() throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("portico-demo-\(UUID())")
        defer { try? FileManager.default.removeItem(at: config) }
        // Login stores under the discovered issuer, which has no trailing slash; port 9 is closed.
        let store = FileTokenStore(directory: config.appendingPathComponent("portico-demo"))
        let key = TokenStoreKey(provider: "http://127.0.0.1:9", clientID: "demo-app")
        try store.save(StoredGrant(accessToken: "a", expiresAt: nil, refreshToken: "r", scopes: ["profile"]), for: key)

        let result = try run(["--issuer", "http://127.0.0.1:9/", "logout"], config: config)
        #expect(result.status == 0)
        #expect(result.output.contains("Signed out on this computer"))
        #expect(try store.grant(for: key) == nil)

        let again = try run(["--issuer", "http://127.0.0.1:9/", "logout"], config: config)
        #expect(again.output.contains("Nobody was signed in"))
    }
}
