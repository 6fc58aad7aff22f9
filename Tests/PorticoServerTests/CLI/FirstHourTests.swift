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
}
