import Foundation
import PorticoStore
import Testing

@testable import PorticoStorePostgres
@testable import PorticoStoreSQLite

/// Every schema version this build has, in order (tests never name the latest one).
private let allVersions = PostgresSchema.migrations.map(\.version)
/// A version newer than any this build knows.
private let newer = PostgresStore.supportedSchemaVersion + 1

/// `migrate` on an empty database, on a current one, on one from a newer Portico, from two nodes
/// at once; and the schema it makes is SQLite's, table for table and column for column.
@Suite(TestServer.required) struct MigrationTests {
    @Test func anEmptyDatabaseIsMigratedAndRerunningIsANoOp() throws {
        let database = try TemporaryDatabase()
        let store = try database.store(migrate: false)
        #expect(store.migrationsAppliedAtOpen.isEmpty)
        #expect(try store.schemaVersion() == 0)
        #expect(try store.migrate() == allVersions)
        #expect(try store.schemaVersion() == PostgresStore.supportedSchemaVersion)
        #expect(try store.migrate().isEmpty)
        store.close()

        let reopened = try database.store()
        defer { reopened.close() }
        #expect(reopened.migrationsAppliedAtOpen.isEmpty)
        #expect(try reopened.schemaVersion() == PostgresStore.supportedSchemaVersion)
        let history = try reopened.withTransaction { connection in
            var versions: [Int] = []
            try connection.run("SELECT version FROM schema_migrations ORDER BY version", []) {
                versions.append(try $0.int("version"))
            }
            return versions
        }
        #expect(history == allVersions)
    }

    @Test func openingMigratesByDefault() throws {
        let database = try TemporaryDatabase()
        let store = try database.store()
        defer { store.close() }
        #expect(store.migrationsAppliedAtOpen == allVersions)
    }

    @Test func aNewerSchemaIsRefusedWithAClearError() throws {
        let database = try TemporaryDatabase()
        let newer = PostgresStore.supportedSchemaVersion + 1
        try database.store().close()
        try database.connection().run(
            "INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)", [.int(newer), .integer(0)])
        let expected = StoreError.schemaTooNew(found: newer, supported: PostgresStore.supportedSchemaVersion)
        #expect(throws: expected) { try database.store() }
        #expect(throws: expected) { try database.store(migrate: false) }
        #expect(
            expected.description
                == "database schema version \(newer) is newer than this portico understands (\(PostgresStore.supportedSchemaVersion)); upgrade portico"
        )
    }

    /// Two nodes starting on an empty database: each migration is applied once, both open.
    @Test func twoStoresMigratingAtOnceApplyEachMigrationOnce() throws {
        let database = try TemporaryDatabase()
        let url = database.url
        let results = ResultBox()
        let group = DispatchGroup()
        for _ in 0..<2 {
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    let store = try PostgresStore(url: url, poolSize: 1)
                    results.append(.success(store.migrationsAppliedAtOpen))
                    store.close()
                } catch {
                    results.append(.failure("\(error)"))
                }
            }.start()
        }
        #expect(group.wait(timeout: .now() + 120) == .success)
        let applied = results.values.compactMap { try? $0.get() }
        #expect(applied.count == 2)
        #expect(applied.sorted { $0.count < $1.count } == [[], allVersions])
        #expect(try database.connection().scalar("SELECT count(*) FROM schema_migrations") == "\(allVersions.count)")
    }

    /// A migration that fails leaves nothing behind (DDL is transactional), and the next run
    /// applies it whole.
    @Test func aFailedMigrationLeavesTheDatabaseAsItWas() throws {
        let database = try TemporaryDatabase()
        let connection = try database.connection()
        _ = try PostgresSchema.migrate(connection, upTo: 2)
        // Version 3 creates grant_revocations; a table of that name in the way makes it fail.
        try connection.execute("CREATE TABLE grant_revocations (x int)")
        #expect(throws: (any Error).self) { try PostgresSchema.migrate(connection) }
        #expect(try PostgresSchema.version(of: connection) == 2)
        #expect(try connection.scalar("SELECT to_regclass('legacy_refresh_tokens') IS NULL") == "t")
        try connection.execute("DROP TABLE grant_revocations")
        #expect(try PostgresSchema.migrate(connection) == allVersions.filter { $0 >= 3 })
    }

    /// Version 4 moves refresh tokens into their family's row exactly as SQLite's does: the
    /// current token and the one its last rotation replaced land in the family, every token's
    /// hash in legacy_refresh_tokens.
    @Test func version4MovesRefreshTokensIntoTheirFamilies() throws {
        let database = try TemporaryDatabase()
        let connection = try database.connection()
        #expect(try PostgresSchema.migrate(connection, upTo: 3) == [1, 2, 3])
        try insertPersonAndApp(on: connection)
        try connection.run(
            "INSERT INTO refresh_families (id, client_id, user_id, scopes, auth_time, created_at) VALUES ($1, $2, $3, $4, $5, $5)",
            [.text("f1"), .text("c1"), .text("u1"), .text("[\"openid\"]"), .integer(100)])
        let insertToken =
            "INSERT INTO refresh_tokens (token_hash, family_id, created_at, expires_at, rotated_at, successor_hash) VALUES ($1, $2, $3, $4, $5, $6)"
        try connection.run(
            insertToken, [.bytes([1]), .text("f1"), .integer(100), .integer(1000), .integer(200), .bytes([2])])
        try connection.run(
            insertToken, [.bytes([2]), .text("f1"), .integer(200), .integer(1100), .integer(300), .bytes([3])])
        try connection.run(insertToken, [.bytes([3]), .text("f1"), .integer(300), .integer(1200), .null, .null])
        #expect(try PostgresSchema.migrate(connection) == allVersions.filter { $0 >= 4 })
        var family: ([UInt8]?, Int64?, Int64?, [UInt8]?, Int64?)?
        try connection.run(
            "SELECT token_hash, token_issued_at, token_expires_at, previous_token_hash, rotated_at FROM refresh_families",
            []
        ) { row in
            family = (
                try row.optionalBytes("token_hash"), try row.optionalInteger("token_issued_at"),
                try row.optionalInteger("token_expires_at"), try row.optionalBytes("previous_token_hash"),
                try row.optionalInteger("rotated_at")
            )
        }
        let moved = try #require(family)
        #expect(moved.0 == [3] && moved.1 == 300 && moved.2 == 1200 && moved.3 == [2] && moved.4 == 300)
        #expect(try connection.scalar("SELECT count(*) FROM legacy_refresh_tokens WHERE family_id = 'f1'") == "3")
        #expect(try connection.scalar("SELECT to_regclass('refresh_tokens') IS NULL") == "t")
    }

    /// Version 15 moves each device-session link into its family's row; the link table goes.
    @Test func version15MovesDeviceSessionLinksIntoTheirFamilies() throws {
        let database = try TemporaryDatabase()
        let connection = try database.connection()
        #expect(try PostgresSchema.migrate(connection, upTo: 14) == allVersions.filter { $0 <= 14 })
        try insertPersonAndApp(on: connection)
        try connection.run(
            """
            INSERT INTO device_sessions (id, secret_hash, user_id, sso_group, scopes, auth_time, created_at)
            VALUES ($1, $2, $3, 'vendor', '["openid"]', $4, $4)
            """, [.text("s1"), .bytes([9]), .text("u1"), .integer(100)])
        for family in ["linked", "unlinked"] {
            try connection.run(
                "INSERT INTO refresh_families (id, client_id, user_id, scopes, auth_time, created_at) VALUES ($1, $2, $3, $4, $5, $5)",
                [.text(family), .text("c1"), .text("u1"), .text("[\"openid\"]"), .integer(100)])
        }
        try connection.run(
            "INSERT INTO device_session_families (family_id, device_session_id) VALUES ($1, $2)",
            [.text("linked"), .text("s1")])
        #expect(try PostgresSchema.migrate(connection) == allVersions.filter { $0 >= 15 })
        #expect(try connection.scalar("SELECT device_session_id FROM refresh_families WHERE id = 'linked'") == "s1")
        #expect(
            try connection.scalar("SELECT device_session_id IS NULL FROM refresh_families WHERE id = 'unlinked'") == "t"
        )
        #expect(try connection.scalar("SELECT to_regclass('device_session_families') IS NULL") == "t")
        // Removing the session unlinks its family and leaves it.
        try connection.run("DELETE FROM device_sessions WHERE id = $1", [.text("s1")])
        #expect(
            try connection.scalar("SELECT device_session_id IS NULL FROM refresh_families WHERE id = 'linked'") == "t")
    }

    @Test func theAuditLogIsAppendOnly() throws {
        let database = try TemporaryDatabase()
        try database.store().close()
        let connection = try database.connection()
        try connection.run(
            "INSERT INTO audit_log (id, occurred_at, actor, action, subject, details) VALUES ($1, $2, $3, $4, $5, $6)",
            [.text("e1"), .integer(1), .text("cli"), .text("client.add"), .text("c1"), .text("{}")])
        for statement in ["UPDATE audit_log SET actor = 'x'", "DELETE FROM audit_log", "TRUNCATE audit_log"] {
            let error = try #require(caught(PostgresError.self) { try connection.execute(statement) })
            #expect(error.message == "the audit log is append-only")
        }
        #expect(try connection.scalar("SELECT count(*) FROM audit_log") == "1")
    }

    /// The same tables, columns, nullability, hash types and indexes as SQLite's schema at the
    /// same version, read from both databases' catalogues.
    @Test func theSchemaIsSQLitesTableForTable() throws {
        let database = try TemporaryDatabase()
        try database.store().close()
        let postgres = try database.connection()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("schema-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let sqlitePath = directory.appendingPathComponent("portico.db").path
        let sqliteStore = try SQLiteStore(path: sqlitePath)
        sqliteStore.close()
        let sqlite = try SQLiteConnection(path: sqlitePath, busyTimeoutMilliseconds: 1000)
        #expect(try sqliteSchemaVersion(sqlite) == PostgresStore.supportedSchemaVersion)

        var sqliteTables: [String] = []
        try sqlite.run(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name", []
        ) { sqliteTables.append(try $0.text("name")) }
        var postgresTables: [String] = []
        try postgres.run("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename", []) {
            postgresTables.append(try $0.text("tablename"))
        }
        #expect(postgresTables == sqliteTables)

        for table in sqliteTables {
            var sqliteColumns: [String] = []
            try sqlite.run("SELECT name, type, \"notnull\", pk FROM pragma_table_info(?) ORDER BY cid", [.text(table)])
            {
                row in
                let notNull = try row.bool("notnull")
                let primaryKey = try row.int("pk") > 0
                let type = Self.postgresType(sqlite: try row.text("type"))
                sqliteColumns.append("\(try row.text("name")) \(type) \(notNull || primaryKey)")
            }
            var postgresColumns: [String] = []
            try postgres.run(
                "SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position",
                [.text(table)]
            ) { row in
                let type = Self.typeClass(postgres: try row.text("data_type"))
                postgresColumns.append("\(try row.text("column_name")) \(type) \(try row.text("is_nullable") == "NO")")
            }
            // The one planned difference: slices by primary key instead of by rowid.
            if table == "purge_positions" {
                sqliteColumns = sqliteColumns.map {
                    $0.replacingOccurrences(of: "last_rowid integer", with: "last_key text")
                }
            }
            #expect(postgresColumns == sqliteColumns, "table \(table)")
        }

        var sqliteIndexes: [String] = []
        try sqlite.run("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name", []) {
            sqliteIndexes.append(try $0.text("name"))
        }
        var postgresIndexes: [String] = []
        try postgres.run(
            // Indexes of their own, not those behind PRIMARY KEY and UNIQUE (SQLite's autoindexes).
            """
            SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
            JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'public' AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
            ORDER BY c.relname
            """, []
        ) { postgresIndexes.append(try $0.text("relname")) }
        #expect(postgresIndexes == sqliteIndexes)
    }

    /// The person `u1` and the public client `c1` as the oldest schema stores them (columns
    /// added later take their defaults), for tests that build a database of an earlier version.
    private func insertPersonAndApp(on connection: PostgresConnection) throws {
        try connection.run(
            "INSERT INTO users (id, email, email_normalized, name, password_hash, created_at, updated_at) VALUES ($1, $2, $2, $3, $4, $5, $5)",
            [.text("u1"), .text("ann@example.com"), .text("Ann"), .text("hash"), .integer(100)])
        try connection.run(
            """
            INSERT INTO clients (id, name, type, redirect_uris, allowed_scopes, allowed_grant_types,
                post_logout_redirect_uris, created_at) VALUES ($1, $2, 'public', '[]', '[]', '[]', '[]', $3)
            """, [.text("c1"), .text("App"), .integer(100)])
    }

    private func sqliteSchemaVersion(_ connection: SQLiteConnection) throws -> Int {
        var version = 0
        try connection.run("PRAGMA user_version", []) { version = Int($0.integer(at: 0)) }
        return version
    }

    /// SQLite's declared type as the class of PostgreSQL type it must have become.
    private static func postgresType(sqlite: String) -> String {
        switch sqlite.uppercased() {
        case "TEXT": "text"
        case "BLOB": "bytea"
        default: "integer"
        }
    }

    private static func typeClass(postgres: String) -> String {
        switch postgres {
        case "text": "text"
        case "bytea": "bytea"
        case "bigint", "integer", "boolean": "integer"
        default: postgres
        }
    }
}

/// Results gathered from several threads.
final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Result<[Int], TestFailure>] = []

    func append(_ result: Result<[Int], TestFailure>) { lock.withLock { stored.append(result) } }
    var values: [Result<[Int], TestFailure>] { lock.withLock { stored } }
}

/// A failure described for a test's message.
struct TestFailure: Error, ExpressibleByStringInterpolation {
    let message: String
    init(stringLiteral value: String) { message = value }
}

extension Result where Failure == TestFailure {
    static func failure(_ message: String) -> Self { .failure(TestFailure(stringLiteral: message)) }
}
