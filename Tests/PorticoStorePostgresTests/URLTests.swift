import Foundation
import PorticoStore
import Testing

@testable import PorticoStorePostgres

/// What an operator reads when a URL cannot be used: one line naming the problem, no libpq text
/// stack and never the password. These need no server.
@Suite struct URLTests {
    @Test(arguments: [
        ("postgres://portico:hunter2@db.example:abc/portico", "invalid"),
        ("postgres://portico:hunter2@db.example:70000/portico", "invalid"),
        ("postgres://portico:hunter2@db.example/portico?sslmod=require", "sslmod"),
        ("postgres://portico:hunter2@db.example/portico?sslmode", "sslmode"),
        ("postgres://portico:hunter2@[::1/portico", "invalid"),
        ("mysql://portico:hunter2@db.example/portico", "postgres://"),
    ])
    func anUnusableURLIsOneLineNamingTheProblem(url: String, named: String) throws {
        let error = try #require(caught(PostgresError.self) { _ = try PostgresURL(url) })
        #expect(error.kind == .invalidURL)
        let line = error.storeError.description
        #expect(line.hasPrefix("invalid PostgreSQL URL: "))
        #expect(line.contains(named))
        #expect(!line.contains("\n"))
        #expect(!line.contains("hunter2"))
    }

    @Test func theStoreReportsABadURLBeforeConnecting() throws {
        let error = try #require(
            caught(StoreError.self) { _ = try PostgresStore(url: "postgres://u:pw@h:abc/db", poolSize: 1) })
        guard case .backendUnavailable(let line) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(line.hasPrefix("invalid PostgreSQL URL: "))
    }

    @Test func theTargetNamesUserHostPortAndDatabaseButNotThePassword() throws {
        #expect(
            try PostgresURL("postgres://portico:hunter2@db.example:5433/idp").target == "portico@db.example:5433/idp")
        #expect(
            try PostgresURL("postgresql://portico@db.example/idp?sslmode=require").target
                == "portico@db.example:5432/idp")
        #expect(try PostgresURL("postgres://a@h1:5432,h2:5433/idp").target == "a@h1,h2:5432,5433/idp")
    }

    @Test func theURLsOwnParametersWinOverPorticosDefaults() throws {
        let parameters = try PostgresURL("postgres://u@h/db?connect_timeout=2").parameters
        // libpq takes the last value of a repeated keyword: the URL comes last.
        #expect(parameters.last?.0 == "dbname")
        #expect(parameters.contains { $0 == ("connect_timeout", "5") })
    }

    @Test func libpqConnectionFailuresAreCondensedToTheirReason() {
        let refused = """
            connection to server at "127.0.0.1", port 1 failed: Connection refused
            \tIs the server running on that host and accepting TCP/IP connections?

            """
        #expect(PostgresConnection.connectionFailureReason(refused) == "connection refused")
        let password = """
            connection to server at "127.0.0.1", port 5432 failed: FATAL:  password authentication failed for user "portico"

            """
        #expect(
            PostgresConnection.connectionFailureReason(password)
                == "password authentication failed for user \"portico\"")
        #expect(
            PostgresConnection.connectionFailureReason(
                "connection to server at \"127.0.0.1\", port 5432 failed: fe_sendauth: no password supplied\n")
                == "the server asks for a password: put it in the URL, PGPASSWORD or ~/.pgpass")
    }

    @Test(arguments: [
        ("40001", PostgresError.Kind.serializationFailure),
        ("40P01", .serializationFailure),
        ("23503", .foreignKeyViolation),
        ("08006", .unavailable),
        ("08001", .unavailable),
        ("57P01", .unavailable),
        ("57P03", .unavailable),
        ("53300", .unavailable),
        ("57014", .timeout),
        ("22001", .invalidValue),
        ("23502", .invalidValue),
        ("42601", .other),
    ])
    func sqlStatesAreClassified(sqlState: String, kind: PostgresError.Kind) {
        #expect(PostgresError.kind(sqlState: sqlState, detail: nil) == kind)
    }

    @Test func aUniqueViolationKeepsTheKeysColumnsButNotItsValue() {
        let kind = PostgresError.kind(
            sqlState: "23505", detail: "Key (host_client_id, host_user_id)=(c1, secret value) already exists.")
        #expect(kind == .uniqueViolation(columns: ["host_client_id", "host_user_id"]))
        let error = PostgresError(kind: kind, sqlState: "23505", message: "duplicate key value")
        #expect(error.storeError == .duplicate(field: "host_client_id, host_user_id"))
        #expect(PostgresError.field(columns: ["email_normalized"]) == "email")
        #expect(PostgresError.field(columns: ["kid"]) == "id")
        #expect(PostgresError.field(columns: []) == "value")
    }

    @Test func onlyConflictsAreRetryable() {
        #expect(PostgresError(kind: .serializationFailure, sqlState: "40001", message: "").isRetryable)
        #expect(!PostgresError(kind: .unavailable, sqlState: "57P01", message: "").isRetryable)
        #expect(!PostgresError(kind: .uniqueViolation(columns: []), sqlState: "23505", message: "").isRetryable)
    }

    @Test func byteaHexIsDecodedAndDamageIsRefused() {
        #expect(PostgresRow.decodeHex("\\x00ff10Ab") == [0x00, 0xFF, 0x10, 0xAB])
        #expect(PostgresRow.decodeHex("\\x") == [])
        #expect(PostgresRow.decodeHex("\\x0") == nil)
        #expect(PostgresRow.decodeHex("\\xzz") == nil)
        #expect(PostgresRow.decodeHex("00ff") == nil)
    }
}

extension URLTests {
    @Test func thePasswordIsFoundAndCutOutOfMessages() {
        #expect(PostgresURL.password(in: "postgres://u:p%40ss:w@h:1/db?x=@") == "p%40ss:w")
        #expect(PostgresURL.password(in: "postgres://u@h/db") == nil)
        #expect(PostgresURL.password(in: "postgres://h/db") == nil)
        let url = "postgres://u:hunter2@[::1/db"
        #expect(
            PostgresURL.redacted("bad host in URI: \"\(url)\"; also hunter2 and \(url)", url: url)
                == "bad host; also (the password) and (the URL)")
    }
}
