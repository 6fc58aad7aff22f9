import Foundation
import PorticoStore
import PorticoTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `portico serve --session-lifetime` / `--remembered-session-lifetime`: bad values are one
/// usage line, and a real server started with them gives sessions that lifetime.
@Suite struct SessionLifetimeOptionTests {
    @Test(arguments: [
        (["serve", "--session-lifetime", "soon"], "session-lifetime must be a duration such as 30m, 12h or 30d"),
        (["serve", "--session-lifetime", "1m"], "session-lifetime must be from 5m to 7d"),
        (["serve", "--remembered-session-lifetime", "400d"], "remembered-session-lifetime must be from 1h to 365d"),
        (["serve", "--session-lifetime", "-5m"], "session-lifetime must be a duration"),
    ])
    func badLifetimesAreOneUsageLine(_ arguments: [String], _ message: String) throws {
        let result = try PorticoProcess.run(arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test func helpNamesTheOptions() throws {
        let help = try PorticoProcess.run(["serve", "--help"])
        #expect(help.stdout.contains("--session-lifetime DURATION"))
        #expect(help.stdout.contains("--remembered-session-lifetime DURATION"))
    }

    @Test func aServerStartedWithALifetimeGivesSessionsThatLifetime() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("portico-cli-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = "sqlite:\(directory.path)/portico.db"
        let server = try ServeProcess(
            databaseURL: database, arguments: ["--session-lifetime", "30m", "--remembered-session-lifetime", "2d"])
        defer { _ = server.terminate() }
        let password = "a long enough password"
        let added = try PorticoProcess.run(
            ["user", "add", "--email", "ann@example.com", "--name", "Ann", "--password-stdin", "--database", database],
            stdin: password + "\n")
        #expect(added.status == 0, "\(added.stderr)")
        let base = server.base
        let plain = TestBrowser(base: base)
        #expect(try await plain.signIn(at: "/login", email: "ann@example.com", password: password).status == 303)
        let kept = TestBrowser(base: base)
        #expect(
            try await kept.signIn(at: "/login", email: "ann@example.com", password: password, remember: true).status
                == 303)

        let store = try openStore(url: database)
        defer { store.close() }
        let user = try #require(try store.user(email: "ann@example.com"))
        let lifetimes = try store.sessions(userID: user.id).map {
            ($0.isPersistent, $0.expiresAt.timeIntervalSince($0.createdAt))
        }
        #expect(lifetimes.count == 2)
        #expect(lifetimes.contains { !$0.0 && abs($0.1 - 1800) <= 1 }, "\(lifetimes)")
        #expect(lifetimes.contains { $0.0 && abs($0.1 - 2 * 86400) <= 1 }, "\(lifetimes)")
    }
}
