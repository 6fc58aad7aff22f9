import Foundation
import Testing

/// `portico-host-demo` and `portico-host-backend` run as the real programs: bad command lines
/// get one line on stderr and exit 2, never a crash.
struct HostExampleCommandLineTests {
    static func binary(_ name: String) -> URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
    }

    private func run(_ name: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["PORTICO_CLIENT_ID"] = nil
        environment["XDG_CONFIG_HOME"] =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("host-demo-\(UUID())").path
        return try execute(Self.binary(name), arguments, environment: environment)
    }

    /// Runs `executable` to completion with exactly `environment`; stdout and stderr together.
    private func execute(_ executable: URL, _ arguments: [String], environment: [String: String]) throws -> (
        status: Int32, output: String
    ) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
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

    /// The registration command `portico-host-backend --help` prints, run exactly as printed (by
    /// a shell, with `portico` on the PATH and the database in `PORTICO_DATABASE`), registers a
    /// host that the host app and the backend can use: the host app's redirect URI, port
    /// included, and the token-exchange grant the backend needs for mini-programs.
    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: binary("portico-host-backend").path)
                && FileManager.default.isExecutableFile(atPath: binary("portico").path)))
    func theRegistrationCommandTheBackendPrintsWorksAsPrinted() throws {
        let help = try run("portico-host-backend", ["--help"]).output
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(
            lines.firstIndex { $0.trimmingCharacters(in: .whitespaces).hasPrefix("portico client add") })
        var command: [String] = []
        for line in lines[start...] {
            command.append(line)
            if !line.hasSuffix("\\") { break }
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("host-register-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = "sqlite:\(directory.path)/portico.db"
        #expect(try shell("portico migrate", database: database).status == 0)

        let registered = try shell(command.joined(separator: "\n"), database: database)
        #expect(registered.status == 0, "\(registered.output)")
        #expect(registered.output.contains("\"client_secret\": "), "\(registered.output)")
        let listed = try shell("portico client list --json", database: database).output
        let hostDemoHelp = try run("portico-host-demo", ["--help"]).output
        let redirect = try #require(hostDemoHelp.firstMatch(of: /comes back to (http:\S+)/)?.1)
        #expect(listed.contains("\"redirect_uris\": [\"\(redirect)\"]"), "\(listed)")
        #expect(listed.contains("urn:ietf:params:oauth:grant-type:token-exchange"), "\(listed)")
        #expect(listed.contains("\"account_link\""), "\(listed)")
    }

    /// Runs `script` with /bin/sh, the freshly built `portico` first on the PATH and the given
    /// database in `PORTICO_DATABASE`; stdout and stderr together.
    private func shell(_ script: String, database: String) throws -> (status: Int32, output: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] =
            Self.binary("portico").deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "")
        environment["PORTICO_DATABASE"] = database
        return try execute(URL(fileURLWithPath: "/bin/sh"), ["-c", script], environment: environment)
    }
}
