import Foundation
import PorticoTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct CommandLineTests {
    @Test func helpListsServeAndExitsZero() throws {
        let result = try PorticoProcess.run(["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("serve"))
        let serveHelp = try PorticoProcess.run(["serve", "--help"])
        #expect(serveHelp.status == 0)
        #expect(serveHelp.stdout.contains("--database"))
        #expect(serveHelp.stdout.contains("--metrics"))
    }

    @Test(arguments: [
        (["frob"], "unknown command 'frob'"),
        (["serve", "--port", "99999"], "port must be a number"),
        (["serve", "--bogus"], "unknown option --bogus"),
        (["serve", "--port"], "option --port needs a value"),
        (["serve", "--issuer", "ftp://example.com"], "issuer must be an http(s) URL"),
        (["serve", "--threads", "0"], "threads must be a number"),
    ])
    func mistakesGiveOneLineAndExitTwo(arguments: [String], message: String) throws {
        let result = try PorticoProcess.run(arguments)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("portico: "))
        #expect(result.stderr.contains(message))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    /// The command picks the backend by URL (the server knows only the storage contract): a
    /// PostgreSQL URL reaches the PostgreSQL backend, which says in one line why it cannot
    /// connect (nothing listens on port 1), naming the database without its password.
    @Test func aPostgresURLReachesThePostgresBackend() throws {
        let url = "postgres://portico:hunter2@127.0.0.1:1/portico"
        let result = try PorticoProcess.run(["migrate", "--database", url])
        #expect(result.status != 0)
        #expect(
            result.stderr
                == "portico: cannot open the database postgres://portico:***@127.0.0.1:1/portico: database unavailable: cannot connect to portico@127.0.0.1:1/portico: connection refused\n"
        )
    }

    @Test func serveAnswersHealthzAndStopsCleanlyOnSIGTERM() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("portico-cli-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // No --database: the default one, under the working directory.
        let server = try ServeProcess(databaseURL: nil, directory: directory)
        let (body, response) = try await URLSession.shared.data(from: URL(string: server.base + "/healthz")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: body, as: UTF8.self) == #"{"status":"ok"}"#)
        #expect(server.terminate(timeout: 20) == 0, "SIGTERM ends it with status 0")
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("portico-data").path))
    }
}
