import Foundation
import Testing

@testable import PorticoStorePostgres

/// The PostgreSQL server the tests use, named by `PORTICO_TEST_POSTGRES_URL`; scripts/with-postgres
/// (which `make test-swift` runs the tests under) starts one and sets it.
enum TestServer {
    static let url = ProcessInfo.processInfo.environment["PORTICO_TEST_POSTGRES_URL"]

    /// The trait of suites that need the server: without it they are skipped, and say why.
    static let required = Testing.ConditionTrait.enabled(
        if: url != nil,
        "PORTICO_TEST_POSTGRES_URL is not set; run the tests under scripts/with-postgres (make test-swift does)")

    /// The server's URL, or a failure for a test that runs without it.
    static func requireURL() throws -> String {
        try #require(url, "PORTICO_TEST_POSTGRES_URL is not set")
    }

    /// `url` with another database (and optionally other credentials and query).
    static func url(database: String, user: String? = nil, password: String?? = nil, query: String? = nil) throws
        -> String
    {
        var components = try #require(URLComponents(string: try requireURL()))
        components.path = "/\(database)"
        if let user { components.user = user }
        if let password { components.password = password }
        if let query { components.percentEncodedQuery = query }
        return try #require(components.string)
    }

    /// A connection to the server's own test database, for setting things up beside the store.
    static func connection() throws -> PostgresConnection {
        try PostgresConnection(url: PostgresURL(try requireURL()))
    }
}

/// A database of its own on the test server for one test, dropped (with its connections) when
/// released, so tests can migrate, break and inspect a database without seeing each other's.
final class TemporaryDatabase {
    let name: String
    let url: String

    init() throws {
        name = "portico_test_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
        let admin = try TestServer.connection()
        // The name is made here from hex digits; a database name cannot be a bound parameter.
        try admin.execute("CREATE DATABASE \(name)")
        url = try TestServer.url(database: name)
    }

    deinit {
        if let admin = try? TestServer.connection() {
            try? admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        }
    }

    /// A connection of the test's own to the database.
    func connection() throws -> PostgresConnection {
        try PostgresConnection(url: PostgresURL(url))
    }

    /// A store on the database.
    func store(poolSize: Int = 4, migrate: Bool = true, checkoutTimeout: TimeInterval = 10) throws -> PostgresStore {
        try PostgresStore(url: url, poolSize: poolSize, migrate: migrate, checkoutTimeout: checkoutTimeout)
    }
}

extension PostgresConnection {
    /// The first column of the first row as text (nil for NULL or no row).
    func scalar(_ sql: String, _ parameters: [PostgresValue] = []) throws -> String? {
        var value: String?
        var seen = false
        try run(sql, parameters) { row in
            if !seen { value = row.isNull(at: 0) ? nil : row.text(at: 0) }
            seen = true
        }
        return value
    }

    /// The server process serving this connection.
    func backendPID() throws -> Int {
        try #require(Int(try scalar("SELECT pg_backend_pid()") ?? ""))
    }
}

/// Catches the error `body` throws, typed.
func caught<E: Error>(_ type: E.Type, _ body: () throws -> Void) -> E? {
    do {
        try body()
        return nil
    } catch let error as E {
        return error
    } catch {
        return nil
    }
}
