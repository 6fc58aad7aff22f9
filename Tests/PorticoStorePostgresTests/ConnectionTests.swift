import Foundation
import PorticoStore
import Testing

@testable import PorticoStorePostgres

/// The libpq layer against a real server: values bound and read back unchanged, errors
/// classified by SQLSTATE from real failures, connection failures in one line.
@Suite(TestServer.required) struct ConnectionTests {
    @Test func valuesRoundTripThroughBoundParameters() throws {
        let database = try TemporaryDatabase()
        let connection = try database.connection()
        try connection.execute("CREATE TABLE t (i bigint, s text, b bytea, f boolean, n text)")
        let allBytes = (0...255).map { UInt8($0) } + [0, 0]
        let tricky = "'; DROP TABLE t; -- \"quoted\" $1 \\x00 ünïcødé 🗝️"
        let changed = try connection.run(
            "INSERT INTO t VALUES ($1, $2, $3, $4, $5), ($6, $7, $8, $9, $10)",
            [
                .integer(.max), .text(tricky), .bytes(allBytes), .bool(true), .null,
                .integer(.min), .text(""), .bytes([]), .bool(false), .text(nil),
            ])
        #expect(changed == 2)
        var rows: [(Int64, String, [UInt8], Bool, String?)] = []
        try connection.run("SELECT i, s, b, f, n FROM t ORDER BY i DESC", []) { row in
            rows.append(
                (
                    try row.integer("i"), try row.text("s"), try row.bytes("b"), try row.bool("f"),
                    try row.optionalText("n")
                ))
        }
        #expect(rows.count == 2)
        #expect(rows[0].0 == .max && rows[0].1 == tricky && rows[0].2 == allBytes && rows[0].3 && rows[0].4 == nil)
        #expect(rows[1].0 == .min && rows[1].1 == "" && rows[1].2 == [] && !rows[1].3 && rows[1].4 == nil)
        // The statement was prepared once and reused with other values.
        try connection.run(
            "INSERT INTO t VALUES ($1, $2, $3, $4, $5), ($6, $7, $8, $9, $10)", Array(repeating: .null, count: 10))
        #expect(try connection.scalar("SELECT count(*) FROM t") == "4")
        // INSERT, the two SELECTs above and this one: four statements, however often each ran.
        #expect(try connection.scalar("SELECT count(*) FROM pg_prepared_statements") == "4")
    }

    @Test func timesKeepSQLitesWholeSeconds() throws {
        let database = try TemporaryDatabase()
        let connection = try database.connection()
        try connection.execute("CREATE TABLE t (at bigint)")
        try connection.run("INSERT INTO t VALUES ($1)", [.date(Date(timeIntervalSince1970: 1_800_000_000.999))])
        var read: Date?
        try connection.run("SELECT at FROM t", []) { read = try $0.date("at") }
        #expect(read == Date(timeIntervalSince1970: 1_800_000_000))
    }

    @Test func textWithANulIsRefusedNotTruncated() throws {
        let database = try TemporaryDatabase()
        let connection = try database.connection()
        try connection.execute("CREATE TABLE t (s text)")
        let error = try #require(
            caught(PostgresError.self) { try connection.run("INSERT INTO t VALUES ($1)", [.text("a\u{0}b")]) })
        #expect(error.kind == .invalidValue)
        #expect(try connection.scalar("SELECT count(*) FROM t") == "0")
    }

    @Test func aUniqueViolationIsADuplicateNamingTheFieldNotTheValue() throws {
        let database = try TemporaryDatabase()
        let connection = try database.connection()
        try connection.execute("CREATE TABLE users (id text PRIMARY KEY, email_normalized text UNIQUE)")
        try connection.run("INSERT INTO users VALUES ($1, $2)", [.text("u1"), .text("ann@example.com")])
        let error = try #require(
            caught(PostgresError.self) {
                try connection.run("INSERT INTO users VALUES ($1, $2)", [.text("u2"), .text("ann@example.com")])
            })
        #expect(error.sqlState == "23505")
        #expect(error.storeError == .duplicate(field: "email"))
        #expect(!error.description.contains("ann@example.com"))
        let primary = try #require(
            caught(PostgresError.self) {
                try connection.run("INSERT INTO users VALUES ($1, $2)", [.text("u1"), .text("bob@example.com")])
            })
        #expect(primary.storeError == .duplicate(field: "id"))
    }

    @Test func aMissingReferenceIsReported() throws {
        let database = try TemporaryDatabase()
        let connection = try database.connection()
        try connection.execute("CREATE TABLE parents (id text PRIMARY KEY)")
        try connection.execute("CREATE TABLE children (parent text REFERENCES parents (id))")
        let error = try #require(
            caught(PostgresError.self) { try connection.run("INSERT INTO children VALUES ($1)", [.text("none")]) })
        #expect(error.sqlState == "23503")
        #expect(error.storeError == .missingReference("row"))
    }

    /// Two serializable transactions that each read what the other writes: the server rolls one
    /// back with 40001, which is retryable.
    @Test func aSerializationFailureIsRetryable() throws {
        let database = try TemporaryDatabase()
        let first = try database.connection()
        let second = try database.connection()
        try first.execute("CREATE TABLE t (k text PRIMARY KEY, v bigint)")
        try first.execute("INSERT INTO t VALUES ('a', 0), ('b', 0)")
        try first.execute("BEGIN ISOLATION LEVEL SERIALIZABLE")
        try second.execute("BEGIN ISOLATION LEVEL SERIALIZABLE")
        _ = try first.scalar("SELECT sum(v) FROM t")
        _ = try second.scalar("SELECT sum(v) FROM t")
        try first.run("UPDATE t SET v = 1 WHERE k = $1", [.text("a")])
        try second.run("UPDATE t SET v = 1 WHERE k = $1", [.text("b")])
        try first.execute("COMMIT")
        let error = try #require(caught(PostgresError.self) { try second.execute("COMMIT") })
        #expect(error.sqlState == "40001")
        #expect(error.kind == .serializationFailure)
        #expect(error.isRetryable)
    }

    /// Two transactions that lock two rows in opposite orders: the server breaks the deadlock
    /// by failing one with 40P01, which is retryable too.
    @Test func aDeadlockIsRetryable() throws {
        let database = try TemporaryDatabase()
        let setup = try database.connection()
        try setup.execute("CREATE TABLE t (k text PRIMARY KEY, v bigint)")
        try setup.execute("INSERT INTO t VALUES ('a', 0), ('b', 0)")
        let first = try database.connection()
        let second = try database.connection()
        for connection in [first, second] {
            try connection.execute("SET deadlock_timeout = '50ms'")
            try connection.execute("BEGIN")
        }
        try first.run("UPDATE t SET v = 1 WHERE k = $1", [.text("a")])
        try second.run("UPDATE t SET v = 1 WHERE k = $1", [.text("b")])
        let errors = ErrorBox()
        let handOver = Unchecked(second)
        let other = Thread {
            errors.append(
                caught(PostgresError.self) { try handOver.value.run("UPDATE t SET v = 2 WHERE k = $1", [.text("a")]) })
        }
        other.start()
        errors.append(caught(PostgresError.self) { try first.run("UPDATE t SET v = 2 WHERE k = $1", [.text("b")]) })
        errors.wait(for: 2)
        let failures = errors.values.compactMap { $0 }
        #expect(failures.count == 1)
        #expect(failures.first?.sqlState == "40P01")
        #expect(failures.first?.isRetryable == true)
    }

    @Test func aStatementPastItsTimeoutIsATimeout() throws {
        let database = try TemporaryDatabase()
        let connection = try database.connection()
        try connection.execute("SET statement_timeout = 50")
        let error = try #require(caught(PostgresError.self) { _ = try connection.scalar("SELECT pg_sleep(5)") })
        #expect(error.kind == .timeout)
        #expect(try connection.scalar("SELECT 1") == "1")
    }

    @Test func theDefaultsBoundEveryStatementAndIdleTransaction() throws {
        let database = try TemporaryDatabase()
        let connection = try database.connection()
        #expect(try connection.scalar("SHOW statement_timeout") == "30s")
        #expect(try connection.scalar("SHOW idle_in_transaction_session_timeout") == "1min")
        #expect(try connection.scalar("SELECT current_setting('application_name')") == "portico")
    }

    @Test func aRefusedConnectionIsOneLine() throws {
        let url = "postgres://portico:hunter2@127.0.0.1:1/portico"
        let error = try #require(caught(StoreError.self) { _ = try PostgresStore(url: url, poolSize: 1) })
        #expect(
            error.description
                == "database unavailable: cannot connect to portico@127.0.0.1:1/portico: connection refused")
    }

    @Test func aWrongPasswordIsOneLine() throws {
        let url = try TestServer.url(database: "portico_test", password: "wrong")
        let error = try #require(caught(StoreError.self) { _ = try PostgresStore(url: url, poolSize: 1) })
        #expect(error.description.hasSuffix("password authentication failed for user \"portico\""))
        #expect(!error.description.contains("\n"))
        #expect(!error.description.contains("wrong"))
    }

    /// `sslmode=verify-full` (with a root certificate) reaches libpq unchanged: against the test
    /// server, which has no TLS, Portico refuses to connect, in one line, rather than falling
    /// back to plain text (issue 33). Portico adds no `ssl*` parameter of its own, so whatever the
    /// URL asks for is what libpq does.
    @Test func verifiedTLSAgainstAServerWithoutTLSFailsInOneLine() throws {
        let url = try TestServer.url(
            database: "portico_test",
            query: "sslmode=verify-full&sslrootcert=/etc/ssl/certs/ca-certificates.crt")
        let parsed = try PostgresURL(url)
        #expect(!parsed.parameters.contains { $0.0.hasPrefix("ssl") })
        #expect(parsed.parameters.contains { $0 == ("dbname", url) })
        let error = try #require(caught(StoreError.self) { _ = try PostgresStore(url: url, poolSize: 1) })
        #expect(error.description.hasPrefix("database unavailable: cannot connect to portico@127.0.0.1:"))
        #expect(error.description.contains("SSL"))
        #expect(!error.description.contains("\n"))
        let password = try #require(PostgresURL.password(in: url))
        #expect(!error.description.contains(password))
    }

    @Test func anUnknownDatabaseIsOneLine() throws {
        let url = try TestServer.url(database: "no_such_database")
        let error = try #require(caught(StoreError.self) { _ = try PostgresStore(url: url, poolSize: 1) })
        #expect(error.description.hasSuffix("database \"no_such_database\" does not exist"))
        #expect(!error.description.contains("\n"))
    }

    /// libpq finds the password itself when the URL has none: from PGPASSWORD, or a password
    /// file (`~/.pgpass`, or the one `passfile` names, which is what is tested here so as not to
    /// touch the home directory). Without any, the line says where a password can go.
    @Test func thePasswordMayComeFromTheEnvironmentOrAPasswordFile() throws {
        let full = try #require(URLComponents(string: try TestServer.requireURL()))
        let password = try #require(full.password)
        let withoutPassword = try TestServer.url(database: "portico_test", password: .some(nil))
        #expect(!withoutPassword.contains(password))

        unsetenv("PGPASSWORD")
        let missing = try #require(caught(StoreError.self) { _ = try PostgresStore(url: withoutPassword, poolSize: 1) })
        #expect(
            missing.description.hasSuffix("the server asks for a password: put it in the URL, PGPASSWORD or ~/.pgpass"))

        setenv("PGPASSWORD", password, 1)
        defer { unsetenv("PGPASSWORD") }
        try PostgresStore(url: withoutPassword, poolSize: 1, migrate: false).close()
        unsetenv("PGPASSWORD")

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pgpass-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("pgpass")
        try "*:*:*:portico:\(password)\n".write(to: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        let withFile = try TestServer.url(
            database: "portico_test", password: .some(nil), query: "passfile=\(file.path)&sslmode=disable")
        try PostgresStore(url: withFile, poolSize: 1, migrate: false).close()
    }
}

/// Results gathered from several threads.
final class ErrorBox: @unchecked Sendable {
    private let condition = NSCondition()
    private var stored: [PostgresError?] = []

    func append(_ error: PostgresError?) {
        condition.lock()
        stored.append(error)
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until `count` results are in (at most 60 s: a statement times out after 30).
    func wait(for count: Int) {
        let deadline = Date(timeIntervalSinceNow: 60)
        condition.lock()
        while stored.count < count && condition.wait(until: deadline) {}
        condition.unlock()
    }

    var values: [PostgresError?] {
        condition.lock()
        defer { condition.unlock() }
        return stored
    }
}

/// A value handed to another thread by a test that knows only one thread uses it at a time.
struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
