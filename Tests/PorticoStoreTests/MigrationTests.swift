import Foundation
import Testing

@testable import PorticoStore

@Suite struct MigrationTests {
    @Test func anEmptyFileIsMigratedAndRerunningIsANoOp() throws {
        let directory = try TemporaryDirectory()
        let path = directory.databasePath()
        let store = try SQLiteStore(path: path, migrate: false)
        #expect(store.migrationsAppliedAtOpen.isEmpty)
        #expect(try store.schemaVersion() == 0)
        #expect(try store.migrate() == [1, 2, 3])
        #expect(try store.schemaVersion() == SQLiteStore.supportedSchemaVersion)
        #expect(try store.migrate().isEmpty)
        try store.insert(Fixtures.user())
        store.close()

        let reopened = try SQLiteStore(path: path)
        defer { reopened.close() }
        #expect(reopened.migrationsAppliedAtOpen.isEmpty)
        #expect(try reopened.migrate().isEmpty)
        #expect(try reopened.users().count == 1)
    }

    @Test func openingMigratesByDefault() throws {
        let directory = try TemporaryDirectory()
        let store = try openStore(url: "sqlite:\(directory.databasePath())")
        defer { store.close() }
        #expect((store as? SQLiteStore)?.migrationsAppliedAtOpen == [1, 2, 3])
        #expect(try store.schemaVersion() == SQLiteStore.supportedSchemaVersion)
    }

    @Test func aNewerSchemaIsRefusedWithAClearError() throws {
        let directory = try TemporaryDirectory()
        let path = directory.databasePath()
        try SQLiteStore(path: path).close()
        do {
            let connection = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 1000)
            try connection.execute("PRAGMA user_version = 7")
        }
        let expected = StoreError.schemaTooNew(found: 7, supported: SQLiteStore.supportedSchemaVersion)
        #expect(throws: expected) { try SQLiteStore(path: path) }
        #expect(throws: expected) { try SQLiteStore(path: path, migrate: false) }
        #expect(
            expected.description
                == "database schema version 7 is newer than this portico understands (\(SQLiteStore.supportedSchemaVersion)); upgrade portico"
        )
    }

    @Test func aFileThatIsNotADatabaseIsATypedError() throws {
        let directory = try TemporaryDirectory()
        let path = directory.databasePath()
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        #expect {
            try SQLiteStore(path: path)
        } throws: { error in
            guard case StoreError.corrupt = error else { return false }
            return true
        }
    }

    @Test func theMigrationHistoryIsRecorded() throws {
        let directory = try TemporaryDirectory()
        let path = directory.databasePath()
        try SQLiteStore(path: path).close()
        let connection = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 1000)
        var versions: [Int] = []
        try connection.run("SELECT version FROM schema_migrations ORDER BY version", []) { versions.append($0.int(0)) }
        #expect(versions == [1, 2, 3])
    }

    @Test func theAuditLogRefusesChangesEvenInSQL() throws {
        let directory = try TemporaryDirectory()
        let path = directory.databasePath()
        let store = try SQLiteStore(path: path)
        try store.append(AuditEvent(actor: "cli", action: "test", subject: "x"))
        store.close()
        let connection = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 1000)
        #expect(throws: StoreError.self) { try connection.execute("DELETE FROM audit_log") }
        #expect(throws: StoreError.self) { try connection.execute("UPDATE audit_log SET actor = 'someone'") }
    }
}

@Suite struct DatabaseURLTests {
    @Test func parsesTheForms() throws {
        #expect(
            try DatabaseURL(parsing: "sqlite:./portico-data/portico.db") == .sqlite(path: "./portico-data/portico.db"))
        #expect(try DatabaseURL(parsing: "sqlite:/var/lib/portico.db") == .sqlite(path: "/var/lib/portico.db"))
        #expect(try DatabaseURL(parsing: "sqlite:///var/lib/portico.db") == .sqlite(path: "/var/lib/portico.db"))
        #expect(try DatabaseURL(parsing: "sqlite::memory:") == .sqliteInMemory)
        #expect(
            try DatabaseURL(parsing: "postgres://portico@db:5432/portico")
                == .postgres("postgres://portico@db:5432/portico"))
        #expect(DatabaseURL.standard.description == "sqlite:./portico-data/portico.db")
        for bad in ["", "sqlite:", "mysql://x", "./file.db", "http://x"] {
            #expect(throws: StoreError.unsupportedURL(bad)) { try DatabaseURL(parsing: bad) }
        }
    }

    @Test func postgresIsNotAvailableYet() {
        #expect {
            try openStore(url: "postgres://portico@localhost:5432/portico")
        } throws: { error in
            guard case StoreError.backendUnavailable = error else { return false }
            return "\(error)".contains("PostgreSQL backend not available yet")
        }
    }

    @Test func opensARelativeSQLitePathAndCreatesItsDirectory() throws {
        let directory = try TemporaryDirectory()
        let previous = FileManager.default.currentDirectoryPath
        #expect(FileManager.default.changeCurrentDirectoryPath(directory.url.path))
        defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }
        let store = try openStore(url: "sqlite:./nested/dir/portico.db")
        defer { store.close() }
        try store.insert(Fixtures.user())
        #expect(
            FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("nested/dir/portico.db").path))
    }
}
