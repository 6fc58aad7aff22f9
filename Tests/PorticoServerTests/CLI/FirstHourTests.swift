import Foundation
import PorticoServer
import PorticoTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Issue 34: what a newcomer runs between `make run` and their own app, each checked by the
/// command or page they meet and the one-line answer they get.
@Suite struct FirstHourTests {
    /// A fresh directory for one test, removed afterwards.
    private static func scratch() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("portico-first-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Item 4: a mistyped `--database` path is refused (one line, exit 1) and no file appears;
    /// `migrate` still makes a new database.
    @Test func adminCommandsRefuseADatabaseThatDoesNotExist() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("portcio.db").path
        for arguments in [
            ["client", "list"], ["user", "list"], ["keys", "list"],
            ["scope", "add", "orders", "--description", "Orders"],
            ["client", "add", "--name", "Shop", "--redirect-uri", "https://shop.example/cb"],
        ] {
            let result = try PorticoProcess.run(arguments + ["--database", "sqlite:\(path)"])
            #expect(result.status == 1, "\(arguments)")
            #expect(
                result.stderr == "portico: no database at \(path): check --database (or PORTICO_DATABASE); "
                    + "'portico serve' or 'portico migrate --database sqlite:\(path)' makes a new one\n", "\(arguments)"
            )
            #expect(!FileManager.default.fileExists(atPath: path), "\(arguments)")
        }
        let migrated = try PorticoProcess.run(["migrate", "--database", "sqlite:\(path)"])
        #expect(migrated.status == 0, "\(migrated.stderr)")
        let listed = try PorticoProcess.run(["client", "list", "--database", "sqlite:\(path)"])
        #expect(listed.status == 0, "\(listed.stderr)")
    }

    /// Item 2: a host other machines reach, without an issuer, says what to pass (with and
    /// without `--demo`) instead of answering 421 to everything.
    @Test(arguments: [["--host", "0.0.0.0", "--port", "8123"], ["--host", "0.0.0.0", "--port", "8123", "--demo"]])
    func aNonLoopbackHostWithoutAnIssuerSaysWhatToPass(arguments: [String]) throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try PorticoProcess.run(
            ["serve"] + arguments + ["--database", "sqlite:\(directory.path)/portico.db"])
        #expect(result.status == 2)
        #expect(
            result.stderr == "portico: --host 0.0.0.0 is reached by other machines, so give the URL they use: "
                + "--issuer http://<this host>:8123 (or PORTICO_ISSUER)\n")
        #expect(result.stdout.isEmpty)
    }

    /// Item 3: `make run` twice: one line naming the port, who holds it, and `make run PORT=…`.
    @Test func aTakenPortIsOneLineNamingItsHolderAndTheFix() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try ServeProcess(databaseURL: "sqlite:\(directory.path)/first.db")
        defer { _ = first.terminate() }
        let port = try #require(first.base.split(separator: ":").last.flatMap { UInt16($0) })
        let second = try PorticoProcess.run(
            ["serve", "--port", String(port), "--demo", "--database", "sqlite:\(directory.path)/second.db"])
        #expect(second.status == 1)
        #expect(second.stderr.split(separator: "\n").count == 1, "\(second.stderr)")
        #expect(
            second.stderr.hasPrefix("portico: port \(port) on 127.0.0.1 is taken by portico (pid "), "\(second.stderr)")
        #expect(
            second.stderr.hasSuffix(
                "; stop that, or use another port: make run PORT=\(port + 1) (portico serve --port \(port + 1))\n"),
            "\(second.stderr)")
    }

    /// Item 8: `portico user add` takes only a password the sign-up page would take.
    @Test func userAddFollowsThePasswordRulesOfTheSignUpPage() throws {
        let database = try CLIDatabase()
        for (password, message) in [
            ("eight chr", "at least 15 characters"), ("passwordpassword", "too common"),
            ("ann.person@example.com", "email address or name"),
        ] {
            let refused = try database.portico(
                ["user", "add", "--email", "ann.person@example.com", "--name", "Ann", "--password-stdin"],
                stdin: password + "\n")
            #expect(refused.status == 2, "\(password)")
            #expect(refused.stderr.hasPrefix("portico: password refused: "), "\(refused.stderr)")
            #expect(refused.stderr.contains(message), "\(refused.stderr)")
            #expect(refused.stderr.split(separator: "\n").count == 1)
        }
        let accepted = try database.portico(
            ["user", "add", "--email", "ann.person@example.com", "--name", "Ann", "--password-stdin"],
            stdin: "fifteen letters\n")
        #expect(accepted.status == 0, "\(accepted.stderr)")
    }

    /// Item 5: the first URL `serve` prints is a page about this server with the links a
    /// newcomer needs; the demo's only with `--demo`.
    @Test func theFirstURLServePrintsIsAPage() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        for demo in [true, false] {
            let server = try ServeProcess(
                databaseURL: "sqlite:\(directory.path)/portico-\(demo).db", arguments: demo ? ["--demo"] : [])
            defer { _ = server.terminate() }
            let home = try await CLIHTTP.get(server.base + "/")
            #expect(home.status == 200)
            #expect(home.headers["content-type"]?.hasPrefix("text/html") == true)
            #expect(home.body.contains("OpenID Connect identity provider"))
            #expect(home.body.contains(#"href="/.well-known/openid-configuration""#))
            #expect(home.body.contains(server.base + "/.well-known/openid-configuration"))
            #expect(home.body.contains(#"href="/account""#))
            #expect(home.body.contains(#"href="/demo""#) == demo)
            var request = URLRequest(url: try #require(URL(string: server.base + "/")))
            request.setValue("zh-CN", forHTTPHeaderField: "Accept-Language")
            #expect(try await CLIHTTP.send(request).body.contains("身份提供方"))
        }
    }

    /// Item 1: the demo opened at `localhost` goes to the issuer's address before it sets its
    /// state cookie, so the callback (at the issuer) finds it.
    @Test func theDemoAtAnotherLoopbackNameMovesToTheIssuerFirst() async throws {
        try await ProviderHarness.with(configuration: .testing { $0.demo = true }) { harness in
            let port = harness.provider.port
            for path in ["/demo", "/demo/login", "/"] {
                let other = try await CLIHTTP.get("http://localhost:\(port)\(path)")
                #expect(other.status == 302, "\(path)")
                #expect(other.headers["location"] == harness.issuer + path, "\(path)")
                #expect(other.headers["set-cookie"] == nil, "\(path)")
            }
            let withQuery = try await CLIHTTP.get("http://localhost:\(port)/demo?x=1")
            #expect(withQuery.headers["location"] == harness.issuer + "/demo?x=1")
            #expect(try await CLIHTTP.get(harness.issuer + "/demo").status == 200)
            let login = try await CLIHTTP.get(harness.issuer + "/demo/login")
            #expect(login.status == 302)
            #expect(login.headers["set-cookie"]?.contains(DemoCookieName.state) == true)
        }
    }

    /// Item 6: the README's first part takes a newcomer from `make run` to their own app: what an
    /// app needs (discovery, PKCE S256, the ID token against the JWKS, libraries that work), and
    /// a `client add` that runs as written (the path of the binary, not a bare `portico`).
    @Test func theReadmeGetsANewcomerToTheirOwnApp() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "## Start here"))
        let end = try #require(readme.range(of: "## What it is"))
        let first = String(readme[start.lowerBound..<end.lowerBound])
        for needed in [
            "make run", "make test", "http://127.0.0.1:8080/.well-known/openid-configuration", "`S256`",
            "http://127.0.0.1:8080/oauth/jwks", "Authlib", "`oic`", "mod_auth_openidc", "AppAuth",
            "make install PREFIX=",
        ] {
            #expect(first.contains(needed), "\(needed)")
        }
        let commands = first.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(!commands.contains { $0.hasPrefix("portico ") }, "a bare portico is 'command not found'")
        let add = try #require(commands.first { $0.hasPrefix(".build/release/portico client add") })

        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = "sqlite:\(directory.path)/portico.db"
        #expect(try PorticoProcess.run(["migrate", "--database", database]).status == 0)
        let script = PorticoProcess.executable.path + add.dropFirst(".build/release/portico".count)
        let added = try Self.runProgram("/bin/sh", ["-c", script], environment: ["PORTICO_DATABASE": database])
        #expect(added.status == 0, "\(added.output)")
        #expect(added.output.contains("client_id:"), "\(added.output)")

        // `make install PREFIX=…` copies that binary onto the PATH (shown, not run: it builds a release).
        let (status, planned) = try Self.runProgram(
            "/usr/bin/make", ["-n", "-C", root.path, "install", "PREFIX=\(directory.path)"])
        #expect(status == 0, "\(planned)")
        #expect(
            planned.contains("install -D -m 0755 .build/release/portico \(directory.path)/bin/portico"), "\(planned)")
    }

    /// Item 7: every registration the READMEs print runs exactly as printed, by a shell, in a
    /// folder where `.build/release/portico` is the binary under test (the main README's
    /// `client add` lines, and Examples/host-backend/README.md's block up to starting the
    /// programs), each leaving the client id it promises.
    @Test func theReadmesRegistrationCommandsRunAsPrinted() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let release = directory.appendingPathComponent(".build/release")
        try FileManager.default.createDirectory(at: release, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: release.appendingPathComponent("portico"), withDestinationURL: PorticoProcess.executable)
        let database = "sqlite:\(directory.path)/portico.db"
        #expect(try PorticoProcess.run(["migrate", "--database", database]).status == 0)

        func shell(_ script: String) throws -> (status: Int32, output: String) {
            try Self.runProgram(
                "/bin/sh", ["-e", "-c", script], in: directory, environment: ["PORTICO_DATABASE": database])
        }

        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let statements = Self.shellStatements(in: readme).filter { $0.contains(".build/release/portico client add") }
        #expect(statements.count >= 3)
        for statement in statements {
            let variable = statement.firstMatch(of: /export (\w+)=/).map { String($0.1) }
            let script = statement + (variable.map { "\nprintf 'id=%s\\n' \"$\($0)\"" } ?? "")
            let result = try shell(script)
            #expect(result.status == 0, "\(statement): \(result.output)")
            #expect(result.output.contains(variable == nil ? "client_id:" : "id="), "\(statement): \(result.output)")
            if variable != nil { #expect(!result.output.contains("id=\n"), "\(statement): \(result.output)") }
        }

        let host = try String(
            contentsOf: root.appendingPathComponent("Examples/host-backend/README.md"), encoding: .utf8)
        let block = try #require(Self.shellBlocks(in: host).first { $0.contains("client add") })
        let setUp = block.split(separator: "\n", omittingEmptySubsequences: false)
            .prefix { !$0.hasPrefix(".build/debug/portico-host-backend") }.joined(separator: "\n")
        let result = try shell(
            setUp + "\nprintf 'host=%s mini=%s secret=%s\\n' \"$HOST_ID\" \"$MINI_ID\" \"$(cat host-secret)\"")
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.firstMatch(of: /host=\S{22} mini=\S{22} secret=\S{43}\n/) != nil, "\(result.output)")
    }

    /// Runs `program` to completion in `directory` (this process's by default) with `environment`
    /// added to this process's; standard output and error together.
    private static func runProgram(
        _ program: String, _ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]
    ) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    /// The bodies of the ```sh blocks of a Markdown text.
    private static func shellBlocks(in markdown: String) -> [String] {
        markdown.components(separatedBy: "```sh\n").dropFirst().compactMap {
            $0.components(separatedBy: "```").first
        }
    }

    /// The commands of the ```sh blocks, continuation lines joined, comments and blank lines left out.
    private static func shellStatements(in markdown: String) -> [String] {
        var statements: [String] = []
        for block in shellBlocks(in: markdown) {
            var current = ""
            for line in block.split(separator: "\n") {
                let text = String(line)
                if current.isEmpty && (text.hasPrefix("#") || text.hasPrefix("$ ")) { continue }
                current += (current.isEmpty ? "" : "\n") + text
                if !text.hasSuffix("\\") {
                    statements.append(current)
                    current = ""
                }
            }
        }
        return statements
    }
}

/// The demo's state cookie name as the browser sees it.
private enum DemoCookieName {
    static let state = "portico_demo_state"
}
