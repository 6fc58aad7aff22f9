import CSQLite
import Foundation
import PorticoTesting
import Testing

/// The backend a crash scenario runs on: one scenario body, both backends.
enum CrashBackend: String, Sendable, CustomStringConvertible {
    case sqlite, postgres

    var description: String { rawValue }

    /// The server scripts/with-postgres started (`make test-swift`); nil without one.
    static let postgresURL = ProcessInfo.processInfo.environment["PORTICO_TEST_POSTGRES_URL"]

    /// The trait of the PostgreSQL runs: skipped, saying why, without a server.
    static let postgresRequired = Testing.ConditionTrait.enabled(
        if: postgresURL != nil,
        "PORTICO_TEST_POSTGRES_URL is not set; run the tests under scripts/with-postgres (make test-swift does)")

    /// The trait of runs that start a PostgreSQL server of their own (initdb and pg_ctl).
    static let postgresProgramsRequired = Testing.ConditionTrait.enabled(
        if: postgresURL != nil && PostgresTools.binDirectory != nil,
        "no PostgreSQL server programs (initdb, pg_ctl), or PORTICO_TEST_POSTGRES_URL is not set")
}

/// The database of one crash scenario: a file in a fresh folder, or a database of its own on
/// a PostgreSQL server (dropped by ``drop()``). It says whether what a crash left is consistent.
struct CrashDatabase: Sendable {
    let backend: CrashBackend
    /// What `--database` gets.
    let url: String
    /// The SQLite file (empty on PostgreSQL).
    let path: String
    /// The PostgreSQL database's name (empty on SQLite).
    let name: String
    /// The PostgreSQL server's own database, for creating and dropping this one.
    let adminURL: String

    /// A new, empty database on `backend` (`directory` holds the SQLite file).
    init(_ backend: CrashBackend, directory: URL, postgresServer: String? = CrashBackend.postgresURL) throws {
        self.backend = backend
        switch backend {
        case .sqlite:
            path = directory.appendingPathComponent("portico.db").path
            url = "sqlite:\(path)"
            name = ""
            adminURL = ""
        case .postgres:
            let server = try postgresServer.orThrow("no PostgreSQL server (PORTICO_TEST_POSTGRES_URL)")
            name = "portico_kill_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
            var components = try URLComponents(string: server).orThrow("a PostgreSQL URL")
            adminURL = server
            components.path = "/\(name)"
            url = try components.string.orThrow("a PostgreSQL URL")
            path = ""
            // The name is made here of hex digits; a database name cannot be a bound parameter.
            // Commits are durable whatever the throwaway server's defaults (it runs with
            // synchronous_commit off for speed, which loses the last commits of a crash of the
            // server itself; Portico's durability is that of the database's settings).
            _ = try Self.psql(server, "CREATE DATABASE \(name)")
            _ = try Self.psql(server, "ALTER DATABASE \(name) SET synchronous_commit = on")
        }
    }

    /// Drops a PostgreSQL database and its connections (a file goes with its folder).
    func drop() {
        guard backend == .postgres else { return }
        _ = try? Self.psql(adminURL, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }

    // MARK: - Consistency

    /// Token invariants of the schema that a crash must not break, each a query counting the
    /// rows that break it. `families == consumed codes + consumed device grants` holds for the
    /// crash world (every grant issues a refresh family in the transaction that consumes it, and
    /// nothing is revoked or purged within a test).
    static let invariants: [(what: String, sql: String)] = [
        (
            "refresh families without a current token",
            "SELECT count(*) FROM refresh_families WHERE token_hash IS NULL OR token_expires_at IS NULL"
                + " OR token_issued_at IS NULL"
        ),
        (
            "half-recorded rotations",
            "SELECT count(*) FROM refresh_families WHERE (previous_token_hash IS NULL) <> (rotated_at IS NULL)"
        ),
        (
            "refresh families without their user or client",
            "SELECT count(*) FROM refresh_families f WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.id = f.user_id)"
                + " OR NOT EXISTS (SELECT 1 FROM clients c WHERE c.id = f.client_id)"
        ),
        (
            "refresh tokens without their family",
            "SELECT count(*) FROM legacy_refresh_tokens t"
                + " WHERE NOT EXISTS (SELECT 1 FROM refresh_families f WHERE f.id = t.family_id)"
        ),
        (
            "session links without their family",
            "SELECT count(*) FROM session_families s"
                + " WHERE NOT EXISTS (SELECT 1 FROM refresh_families f WHERE f.id = s.family_id)"
        ),
        (
            "codes marked used without their tokens",
            "SELECT count(*) FROM authorization_codes c WHERE c.consumed_at IS NOT NULL"
                + " AND (c.issued_access_token_id IS NULL OR c.issued_family_id IS NULL"
                + " OR NOT EXISTS (SELECT 1 FROM refresh_families f WHERE f.id = c.issued_family_id))"
        ),
        (
            "half-issued device grants",
            "SELECT count(*) FROM device_authorizations WHERE (status IN ('approved', 'consumed')"
                + " AND (user_id IS NULL OR auth_time IS NULL)) OR (status = 'pending' AND user_id IS NOT NULL)"
        ),
        (
            "refresh families not matching the grants consumed",
            "SELECT abs((SELECT count(*) FROM refresh_families)"
                + " - (SELECT count(*) FROM authorization_codes WHERE consumed_at IS NOT NULL)"
                + " - (SELECT count(*) FROM device_authorizations WHERE status = 'consumed'))"
        ),
    ]

    /// What is wrong with the database: the invariants it breaks, and on SQLite what
    /// `PRAGMA integrity_check` says, on PostgreSQL what `amcheck` finds in every b-tree index
    /// (index entries against the table's rows). Empty when all is well.
    func problems() throws -> [String] {
        var problems: [String] = []
        for invariant in Self.invariants {
            let count = try query(invariant.sql).first ?? "?"
            if count != "0" { problems.append("\(invariant.what): \(count)") }
        }
        switch backend {
        case .sqlite:
            let integrity = try query("PRAGMA integrity_check").joined(separator: "\n")
            if integrity != "ok" { problems.append("integrity_check: \(integrity)") }
        case .postgres:
            let checked = try Self.psql(
                url,
                """
                CREATE EXTENSION IF NOT EXISTS amcheck;
                SELECT count(bt_index_check(c.oid, true)) FROM pg_index i
                    JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
                    JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE a.amname = 'btree' AND n.nspname = 'public' AND c.relpersistence <> 't';
                """)
            if (Int(checked.last ?? "") ?? 0) < 10 { problems.append("amcheck checked only \(checked) indexes") }
        }
        return problems
    }

    /// The first column of each row `sql` returns.
    func query(_ sql: String) throws -> [String] {
        switch backend {
        case .sqlite: try Self.sqlite(path, sql)
        case .postgres: try Self.psql(url, sql)
        }
    }

    /// The rows of `sql` on the file, read-only.
    private static func sqlite(_ path: String, _ sql: String) throws -> [String] {
        var database: OpaquePointer?
        guard sqlite3_open_v2(path, &database, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
            sqlite3_close(database)
            throw HarnessFailure("cannot open \(path)")
        }
        defer { sqlite3_close(database) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(database, sql, -1, &statement, nil) == SQLITE_OK else {
            throw HarnessFailure("cannot prepare \(sql): \(String(cString: sqlite3_errmsg(database)))")
        }
        defer { sqlite3_finalize(statement) }
        var lines: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            lines.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "")
        }
        return lines
    }

    /// The rows of `sql` (one or more statements; those of the last) through `psql`.
    static func psql(_ url: String, _ sql: String) throws -> [String] {
        let result = try PostgresTools.run(
            "psql", ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql])
        guard result.status == 0 else { throw HarnessFailure("psql: \(sql): \(result.stderr)") }
        return result.stdout.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }
}

/// The PostgreSQL programs (`psql`, `pg_ctl`, `initdb`), from the folder scripts/with-postgres
/// names, else Debian's newest.
enum PostgresTools {
    static var binDirectory: String? {
        if let named = ProcessInfo.processInfo.environment["PORTICO_TEST_POSTGRES_BINDIR"] { return named }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        return versions.compactMap(Int.init).max().map { "/usr/lib/postgresql/\($0)/bin" }
    }

    /// Runs `tool` with `arguments` to completion; `asServerUser` runs it as `postgres` when
    /// the tests run as root (initdb and pg_ctl refuse root, as scripts/with-postgres knows).
    /// An `absolute` tool is a path of its own rather than one of PostgreSQL's programs.
    static func run(_ tool: String, _ arguments: [String], asServerUser: Bool = false, absolute: Bool = false) throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        let program = absolute ? tool : "\(try binDirectory.orThrow("no PostgreSQL programs found"))/\(tool)"
        var command = [program] + arguments
        if asServerUser && getuid() == 0 { command = ["/usr/sbin/runuser", "-u", "postgres", "--"] + command }
        // Through Python's subprocess, which gives the tool no descriptor but its three: a
        // Foundation Process learns that its child ended when every copy of a socket it hands
        // the child is closed, and the server `pg_ctl start` leaves running would keep a copy
        // (the wait would then last as long as the server).
        command =
            ["/usr/bin/python3", "-c", "import subprocess, sys; sys.exit(subprocess.call(sys.argv[1:]))"] + command
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        // Files, not pipes: a pipe's other end would be held by that server too.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "portico-pgtool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outURL = folder.appendingPathComponent("out")
        let errURL = folder.appendingPathComponent("err")
        FileManager.default.createFile(atPath: outURL.path, contents: nil)
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        defer {
            try? out.close()
            try? err.close()
        }
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let stdout = (try? String(contentsOf: outURL, encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
        return (process.terminationStatus, stdout, stderr)
    }
}

extension Optional {
    /// The value, or a failure saying what was missing.
    func orThrow(_ what: @autoclosure () -> String) throws -> Wrapped {
        guard let self else { throw HarnessFailure(what()) }
        return self
    }
}
