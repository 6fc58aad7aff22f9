import Foundation
import Testing

/// `portico-host-demo` and `portico-host-backend` run as the real programs: bad command lines
/// get one line on stderr and exit 2, never a crash.
struct HostExampleCommandLineTests {
    static func binary(_ name: String) -> URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
    }

    private func run(_ name: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = Self.binary(name)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["PORTICO_CLIENT_ID"] = nil
        environment["XDG_CONFIG_HOME"] =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("host-demo-\(UUID())").path
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: binary("portico-host-demo").path)))
    func hostDemoRefusesBadCommandLines() throws {
        for (arguments, message) in [
            ([String](), "no command given"), (["link"], "--client-id"),
            (["--client-id", "h", "fly"], "unknown command fly"),
            (["--client-id", "h", "mini-program", "m"], "mini-program CLIENT_ID profile"),
            (["--backend", "ftp://x", "login-host", "mei"], "not an http(s) URL"), (["login-host"], "one USER"),
        ] {
            let result = try run("portico-host-demo", arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.output.contains(message), "\(arguments): \(result.output)")
            #expect(result.output.split(separator: "\n").count == 1, "\(arguments): \(result.output)")
        }
        let help = try run("portico-host-demo", ["--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("mini-program CLIENT_ID profile"))
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: binary("portico-host-backend").path)))
    func hostBackendRefusesBadCommandLines() throws {
        for (arguments, message) in [
            ([String](), "--client-id is required"), (["--client-id", "h"], "client secret"),
            (["--port", "99999"], "not a port number"), (["--issuer", "nope"], "not an http(s) URL"),
            (["--bogus"], "unknown option --bogus"),
            (["--client-id", "h", "--client-secret-file", "/nonexistent"], "cannot read"),
        ] {
            let result = try run("portico-host-backend", arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.output.contains(message), "\(arguments): \(result.output)")
        }
        #expect(try run("portico-host-backend", ["--help"]).status == 0)
    }
}
