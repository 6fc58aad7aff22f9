import Foundation
import PorticoTesting

/// A PostgreSQL server of one test's own, for a test that crashes the server itself: killing
/// the shared one of scripts/with-postgres would fail the tests beside it. Made as that script
/// makes its own (a temporary cluster on a free loopback port, a superuser `portico` with a
/// random password), but durable (fsync on), since the test is about what a crash keeps.
final class ThrowawayPostgres {
    let directory: URL
    let port: Int
    /// The server's `postgres` database as the superuser.
    let url: String
    private let options: String
    private let data: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("portico-pg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        data = directory.appendingPathComponent("data").path
        let password = UUID().uuidString.replacingOccurrences(of: "-", with: "")
        try Data((password + "\n").utf8).write(to: directory.appendingPathComponent("password"))
        if getuid() == 0 {
            _ = try PostgresTools.run("/usr/bin/chown", ["-R", "postgres", directory.path], absolute: true)
        }
        chmod(directory.path, 0o755)
        let initialized = try PostgresTools.run(
            "initdb",
            [
                "-D", data, "-U", "portico", "--pwfile=\(directory.path)/password", "--auth-local=trust",
                "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync",
            ], asServerUser: true)
        guard initialized.status == 0 else { throw HarnessFailure("initdb: \(initialized.stderr)") }
        port = try Self.freePort()
        options =
            "-c listen_addresses=127.0.0.1 -p \(port) -c unix_socket_directories=\(directory.path) -c max_connections=50"
        url = "postgres://portico:\(password)@127.0.0.1:\(port)/postgres"
        try start()
    }

    deinit {
        _ = try? PostgresTools.run("pg_ctl", ["-D", data, "-m", "immediate", "-t", "20", "stop"], asServerUser: true)
        try? FileManager.default.removeItem(at: directory)
    }

    /// Starts the server (again) and waits until it accepts connections.
    func start() throws {
        let started = try PostgresTools.run(
            "pg_ctl", ["-D", data, "-l", "\(directory.path)/server.log", "-w", "-t", "60", "-o", options, "start"],
            asServerUser: true)
        guard started.status == 0 else {
            let log = (try? String(contentsOfFile: "\(directory.path)/server.log", encoding: .utf8)) ?? ""
            throw HarnessFailure("pg_ctl start: \(started.stderr) \(log.suffix(2000))")
        }
    }

    /// The crash of a machine, as far as the server can tell: `pg_ctl stop -m immediate` ends
    /// every process at once without a checkpoint, so the next start runs crash recovery.
    func crash() throws {
        let stopped = try PostgresTools.run(
            "pg_ctl", ["-D", data, "-m", "immediate", "-t", "30", "stop"], asServerUser: true)
        guard stopped.status == 0 else { throw HarnessFailure("pg_ctl stop: \(stopped.stderr)") }
    }

    /// `kill -9` of one backend of `database`: the postmaster then ends every other backend too
    /// and reinitializes (crash recovery) without being restarted.
    func killBackend(of database: String) throws {
        let pids = try CrashDatabase.psql(
            url, "SELECT pid FROM pg_stat_activity WHERE datname = '\(database)' AND backend_type = 'client backend'")
        guard let pid = pids.first.flatMap({ Int32($0) }) else { throw HarnessFailure("no backend of \(database)") }
        kill(pid, SIGKILL)
    }

    private static func freePort() throws -> Int {
        let result = try PostgresTools.run(
            "/usr/bin/python3",
            [
                "-c",
                "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])",
            ], absolute: true)
        return try Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)).orThrow("a free port")
    }
}
