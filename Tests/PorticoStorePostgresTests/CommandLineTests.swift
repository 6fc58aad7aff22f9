import Foundation
import PorticoCrypto
import PorticoTesting
import Testing

@testable import PorticoStorePostgres

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The real `portico` binary on PostgreSQL: `migrate` on an empty and a current database, admin
/// commands, and what an unusable URL prints.
@Suite(TestServer.required) struct PostgresCommandLineTests {
    @Test func migrateAppliesEverythingOnceThenSaysTheSchemaIsCurrent() throws {
        let database = try TemporaryDatabase()
        let first = try portico(["migrate", "--database", database.url])
        #expect(first.status == 0, "\(first.stderr)")
        let versions = PostgresSchema.migrations.map(\.version)
        let latest = PostgresStore.supportedSchemaVersion
        #expect(
            first.stdout.contains(
                "applied migrations \(versions.map(String.init).joined(separator: ", ")); schema version \(latest)"))
        #expect(first.stdout.contains("made signing keys"))
        let again = try portico(["migrate", "--database", database.url])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout == "schema is current (version \(latest))\n")
    }

    @Test func adminCommandsWorkOnPostgres() throws {
        let database = try TemporaryDatabase()
        let added = try portico([
            "client", "add", "--name", "Shop", "--redirect-uri", "https://shop.example/cb", "--json",
            "--database", database.url,
        ])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("\"client_secret\""))
        let listed = try portico(["client", "list", "--database", database.url])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("Shop"))
        let user = try portico(
            [
                "user", "add", "--email", "ann@example.com", "--name", "Ann", "--password-stdin", "--database",
                database.url,
            ],
            stdin: "correct horse battery staple\n")
        #expect(user.status == 0, "\(user.stderr)")
        let again = try portico(
            [
                "user", "add", "--email", "ANN@example.com", "--name", "Ann", "--password-stdin", "--database",
                database.url,
            ],
            stdin: "correct horse battery staple\n")
        #expect(again.status != 0)
        #expect(again.stderr.split(separator: "\n").count == 1)
    }

    @Test(arguments: [
        ("postgres://portico:hunter2@127.0.0.1:abc/portico", "invalid PostgreSQL URL"),
        ("postgres://portico:hunter2@127.0.0.1:1/portico", "connection refused"),
    ])
    func anUnusableURLIsOneLineWithoutThePassword(url: String, reason: String) throws {
        let result = try portico(["migrate", "--database", url])
        #expect(result.status != 0)
        #expect(result.stderr.hasPrefix("portico: cannot open the database postgres://portico:***@127.0.0.1:"))
        #expect(result.stderr.contains(reason), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(!result.stderr.contains("hunter2"))
    }

    @Test func aBadPoolSizeIsAUsageError() throws {
        let result = try portico(["serve", "--database-pool", "0", "--database", "postgres://u@h/db"])
        #expect(result.status == 2)
        #expect(result.stderr == "portico: database-pool must be a number from 1 to 1000, not '0'\n")
    }

    /// `portico serve` on PostgreSQL: a client added by the CLI while it runs gets a token.
    @Test func serveIssuesTokensFromPostgres() async throws {
        let database = try TemporaryDatabase()
        let process = Process()
        process.executableURL = PorticoProcess.executable
        process.environment = Self.environment
        process.arguments = ["serve", "--port", "0", "--quiet", "--database", database.url, "--database-pool", "2"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let banner = try await firstLine(of: output)
        let base = try #require(banner.firstMatch(of: /listening on (http:\/\/127\.0\.0\.1:\d+)/).map { String($0.1) })

        let added = try portico([
            "client", "add", "--name", "Service", "--redirect-uri", "https://service.example/cb",
            "--grant", "client_credentials", "--json", "--database", database.url,
        ])
        #expect(added.status == 0, "\(added.stderr)")
        let json = try #require(JSONValue(parsing: Array(added.stdout.utf8)))
        let id = try #require(json.objectValue?["client_id"]?.stringValue)
        let secret = try #require(json.objectValue?["client_secret"]?.stringValue)

        var request = URLRequest(url: try #require(URL(string: base + "/oauth/token")))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        let credentials = Data("\(id):\(secret)".utf8).base64EncodedString()
        request.setValue("Basic \(credentials)", forHTTPHeaderField: "Authorization")
        request.httpBody = Data("grant_type=client_credentials".utf8)
        let (body, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(String(decoding: body, as: UTF8.self))")
        let token = JSONValue(parsing: Array(body))
        #expect(token?.objectValue?["access_token"]?.stringValue?.isEmpty == false)

        process.terminate()
        let deadline = Date(timeIntervalSinceNow: 20)
        while process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
    }

    /// The database goes away under a running server (it refuses connections and the server's
    /// are ended, as in a failover): the token endpoint answers 503 with `Retry-After` and an
    /// OAuth error instead of failing; when the database is back, it serves again without a
    /// restart.
    @Test func whileTheDatabaseIsAwayTheTokenEndpointSays503ThenRecovers() async throws {
        let database = try TemporaryDatabase()
        let process = Process()
        process.executableURL = PorticoProcess.executable
        process.environment = Self.environment
        process.arguments = ["serve", "--port", "0", "--quiet", "--database", database.url, "--database-pool", "2"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let banner = try await firstLine(of: output)
        let base = try #require(banner.firstMatch(of: /listening on (http:\/\/127\.0\.0\.1:\d+)/).map { String($0.1) })
        let admin = try TestServer.connection()
        // A client nobody registered: the server must ask the database (no cache can answer).
        func tokenRequest() async throws -> (Int, String, String?) {
            var request = URLRequest(url: try #require(URL(string: base + "/oauth/token")))
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data("grant_type=client_credentials&client_id=unknown&client_secret=x".utf8)
            let (body, response) = try await URLSession.shared.data(for: request)
            let http = response as? HTTPURLResponse
            return (
                http?.statusCode ?? 0, String(decoding: body, as: UTF8.self),
                http?.value(forHTTPHeaderField: "Retry-After")
            )
        }
        #expect(try await tokenRequest().0 == 401)

        try admin.execute("ALTER DATABASE \(database.name) ALLOW_CONNECTIONS false")
        _ = try admin.scalar(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = $1", [.text(database.name)])
        let away = try await tokenRequest()
        #expect(away.0 == 503)
        #expect(away.1.contains("\"temporarily_unavailable\""))
        #expect(away.2 == "1")

        try admin.execute("ALTER DATABASE \(database.name) ALLOW_CONNECTIONS true")
        #expect(try await tokenRequest().0 == 401)

        process.terminate()
        let deadline = Date(timeIntervalSinceNow: 20)
        while process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
    }

    /// The first line a process writes, or "" after 30 s (a broken server fails, never hangs).
    private func firstLine(of pipe: Pipe) async throws -> String {
        try await withThrowingTaskGroup(of: String.self) { group in
            group.addTask {
                var buffer = Data()
                while !buffer.contains(UInt8(ascii: "\n")) {
                    let chunk = pipe.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    buffer.append(chunk)
                }
                return String(decoding: buffer, as: UTF8.self)
            }
            group.addTask {
                try await Task.sleep(for: .seconds(30))
                return ""
            }
            let line = try await group.next() ?? ""
            group.cancelAll()
            return line
        }
    }

    /// Runs the `portico` built next to the test bundle with the key file a shared database needs.
    private func portico(_ arguments: [String], stdin: String? = nil) throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        try PorticoProcess.run(arguments, environment: ["PORTICO_KEY_FILE": Self.keyFile], stdin: stdin)
    }

    /// The environment of every `portico` run: a database shared by several nodes needs the key
    /// that seals its signing keys (`PORTICO_KEY_FILE`; made by the first command).
    private static let environment: [String: String] = {
        var environment = ProcessInfo.processInfo.environment
        environment["PORTICO_KEY_FILE"] = keyFile
        return environment
    }()

    /// One key file for this test process, in a directory of its own.
    private static let keyFile: String = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "portico-postgres-cli-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("signing.key").path
    }()
}
