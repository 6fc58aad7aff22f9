import Foundation
import PorticoServer
import PorticoStore
import PorticoStoreConformance
import PorticoTesting
import Testing

@testable import PorticoStoreSQLite

/// Every schema version this build has, in order (tests never name the latest one).
private let allVersions = SQLiteSchema.migrations.map(\.version)
/// A version newer than any this build knows.
private let newer = SQLiteStore.supportedSchemaVersion + 1

@Suite struct MigrationTests {
    @Test func anEmptyFileIsMigratedAndRerunningIsANoOp() throws {
        let directory = try TemporaryDirectory()
        let path = directory.databasePath()
        let store = try SQLiteStore(path: path, migrate: false)
        #expect(store.migrationsAppliedAtOpen.isEmpty)
        #expect(try store.schemaVersion() == 0)
        #expect(try store.migrate() == allVersions)
        #expect(try store.schemaVersion() == SQLiteStore.supportedSchemaVersion)
        #expect(try store.migrate().isEmpty)
        try store.insert(StoreFixtures.user())
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
        #expect((store as? SQLiteStore)?.migrationsAppliedAtOpen == allVersions)
        #expect(try store.schemaVersion() == SQLiteStore.supportedSchemaVersion)
    }

    @Test func aNewerSchemaIsRefusedWithAClearError() throws {
        let directory = try TemporaryDirectory()
        let path = directory.databasePath()
        let newer = SQLiteStore.supportedSchemaVersion + 1
        try SQLiteStore(path: path).close()
        do {
            let connection = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 1000)
            try connection.execute("PRAGMA user_version = \(newer)")
        }
        let expected = StoreError.schemaTooNew(found: newer, supported: SQLiteStore.supportedSchemaVersion)
        #expect(throws: expected) { try SQLiteStore(path: path) }
        #expect(throws: expected) { try SQLiteStore(path: path, migrate: false) }
        #expect(
            expected.description
                == "database schema version \(newer) is newer than this portico understands (\(SQLiteStore.supportedSchemaVersion)); upgrade portico"
        )
    }

    @Test func aFileThatIsNotADatabaseIsATypedError() throws {
        let directory = try TemporaryDirectory()
        let path = directory.databasePath()
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        #expect(chmod(path, 0o600) == 0)
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
        try connection.run("SELECT version FROM schema_migrations ORDER BY version", []) {
            versions.append(try $0.int("version"))
        }
        #expect(versions == allVersions)
    }

    /// Version 4 moved refresh tokens into their family's row. Tokens issued before keep
    /// working: the current one refreshes, the one just replaced is recognised for the grace
    /// period, an older one is reuse, and their hashes are purged a day after they expire.
    @Test func refreshTokensIssuedBeforeVersion4KeepTheirMeaning() throws {
        let directory = try TemporaryDirectory()
        let path = directory.databasePath()
        let (user, client) = try withStore { try StoreFixtures.userAndClient(in: $0) }
        let now = referenceTime
        do {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let connection = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 1000)
            // An older Portico made the file with the umask; owners chmod it on upgrade.
            #expect(chmod(path, 0o600) == 0)
            #expect(try SQLiteSchema.migrate(connection, upTo: 3, now: now) == [1, 2, 3])
            try connection.execute("PRAGMA foreign_keys = OFF")
            // The user as version 3 stored one (today's store writes columns added since).
            try connection.run(
                """
                INSERT INTO users (id, email, email_normalized, name, password_hash, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(user.id), .text(user.email), .text(UserRecord.normalizedEmail(user.email)),
                    .text(user.name), .text(user.passwordHash), .date(user.createdAt), .date(user.updatedAt),
                ])
            for (id, revoked) in [("live-family", SQLiteValue.null), ("gone-family", .date(now))] {
                try connection.run(
                    """
                    INSERT INTO refresh_families (id, client_id, user_id, scopes, auth_time, created_at, revoked_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                    [.text(id), .text(client.id), .text(user.id), .list(["openid"]), .date(now), .date(now), revoked])
            }
            let day: TimeInterval = 86_400
            let tokens: [(String, String, TimeInterval, TimeInterval?, String?)] = [
                // token, family, issued (seconds after now), rotated, successor
                ("old-a", "live-family", 0, 10, "old-b"), ("old-b", "live-family", 10, 20, "old-c"),
                ("old-c", "live-family", 20, nil, nil), ("expired", "gone-family", -3 * day, nil, nil),
            ]
            for (token, family, issued, rotated, successor) in tokens {
                try connection.run(
                    """
                    INSERT INTO refresh_tokens (token_hash, family_id, created_at, expires_at, rotated_at, successor_hash)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .bytes(SecretHash.digest(token)), .text(family), .date(now + issued),
                        .date(now + issued + day), .date(rotated.map { now + $0 }),
                        .bytes(successor.map { SecretHash.digest($0) }),
                    ])
            }
        }
        // The client came from a store of its own: copy it over.
        let store = try SQLiteStore(path: path, migrate: false)
        defer { store.close() }
        #expect(try store.migrate() == allVersions.filter { $0 >= 4 })
        #expect(try store.user(id: user.id)?.isEmailVerified == false)  // version 11: not known, not verified
        try store.insert(client)

        let family = try #require(try store.refreshFamily(id: "live-family"))
        let later = now.addingTimeInterval(30)
        let expiry = later.addingTimeInterval(86_400)
        #expect(
            try store.read { try RefreshTokenPolicy.token("old-c", in: $0) }?.issuedAt == now.addingTimeInterval(20))
        #expect(
            try store.read { try RefreshTokenPolicy.token("old-b", in: $0) }?.rotatedAt == now.addingTimeInterval(20))
        #expect(
            try store.transaction { try refreshPolicy.rotate("old-b", in: $0, now: later) { _ in "x" } }
                == .previous(family: family, rotatedAt: now.addingTimeInterval(20)))
        #expect(
            try store.transaction { try refreshPolicy.rotate("old-a", in: $0, now: later) { _ in "x" } }
                == .reused(family: family))
        let next = RefreshToken.mint(familyID: family.id)
        guard
            case .rotated = try store.transaction({
                try refreshPolicy.rotate("old-c", in: $0, now: later) { _ in next }
            })
        else {
            Issue.record("the current pre-upgrade token must rotate")
            return
        }
        #expect(try store.read { try RefreshTokenPolicy.token(next, in: $0) }?.rotatedAt == nil)
        #expect(
            try store.transaction { try refreshPolicy.rotate("old-c", in: $0, now: later) { _ in "x" } }
                == .previous(family: family, rotatedAt: later))
        #expect(
            try store.transaction { try refreshPolicy.rotate("never-issued", in: $0, now: later) { _ in "x" } }
                == .notFound)

        #expect(try store.purgeExpired(now: later).refreshTokens == 1)
        #expect(try store.read { try RefreshTokenPolicy.token("expired", in: $0) } == nil)
        #expect(try store.read { try RefreshTokenPolicy.token("old-a", in: $0) } != nil)
        // Removing the person removes their families and what is left of the old hashes.
        #expect(try store.deleteUser(id: user.id))
        #expect(try store.read { try RefreshTokenPolicy.token("old-a", in: $0) } == nil)
    }

    /// Version 15 moves the device-session link into the family's row and renumbers nothing in
    /// the audit log; what version 14 held must mean the same afterwards.
    @Test func deviceSessionLinksAndTheAuditLogSurviveVersion15() throws {
        let directory = try TemporaryDirectory()
        let path = directory.databasePath()
        let now = referenceTime
        let (user, client) = try withStore { try StoreFixtures.userAndClient(in: $0) }
        let session = DeviceSession(
            secret: "device-secret", userID: user.id, ssoGroup: "vendor", scopes: ["openid", "device_sso"],
            authTime: now, createdAt: now)
        let linked = RefreshFamily(
            clientID: client.id, userID: user.id, scopes: ["openid"], authTime: now, createdAt: now)
        let unlinked = RefreshFamily(
            clientID: client.id, userID: user.id, scopes: ["openid"], authTime: now, createdAt: now)
        let events = (1...3).map { AuditEvent(occurredAt: now, actor: "cli", action: "test.\($0)", subject: user.id) }
        do {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let connection = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 1000)
            #expect(chmod(path, 0o600) == 0)
            #expect(try SQLiteSchema.migrate(connection, upTo: 14, now: now) == allVersions.filter { $0 <= 14 })
            let store14 = try SQLiteStore(path: path, migrate: false)
            defer { store14.close() }
            try store14.insert(user)
            // The app as version 14 wrote it: the store's own statement names later columns.
            try connection.run(
                """
                INSERT INTO clients (id, name, type, redirect_uris, allowed_scopes, allowed_grant_types,
                    post_logout_redirect_uris, created_at)
                VALUES (?, ?, 'public', '[]', '[]', '[]', '[]', ?)
                """, [.text(client.id), .text(client.name), .integer(Int64(now.timeIntervalSince1970))])
            try store14.transaction { transaction throws in
                try transaction.insert(session)
                try transaction.insert(linked, token: "refresh-a", expiresAt: now.addingTimeInterval(60))
                try transaction.insert(unlinked, token: "refresh-b", expiresAt: now.addingTimeInterval(60))
                for event in events { try transaction.append(event) }
            }
            // Version 14's link table, written as version 14 wrote it.
            try connection.run(
                "INSERT INTO device_session_families (family_id, device_session_id) VALUES (?, ?)",
                [.text(linked.id), .text(session.id)])
        }
        let store = try SQLiteStore(path: path, migrate: false)
        defer { store.close() }
        #expect(try store.migrate() == allVersions.filter { $0 >= 15 })
        try store.read { transaction throws in
            #expect(try transaction.deviceSessionID(refreshFamilyID: linked.id) == session.id)
            #expect(try transaction.deviceSessionID(refreshFamilyID: unlinked.id) == nil)
            #expect(try transaction.hasLiveRefreshFamily(deviceSessionID: session.id, now: now))
        }
        // Ending the session ends the linked family only.
        try store.transaction { transaction throws in
            #expect(try transaction.revokeRefreshFamilies(deviceSessionID: session.id, now: now) == 1)
        }
        #expect(try store.refreshFamily(id: linked.id)?.isRevoked == true)
        #expect(try store.refreshFamily(id: unlinked.id)?.isRevoked == false)
        // The log keeps its order and goes on numbering after its last row, still append-only.
        let later = AuditEvent(occurredAt: now, actor: "cli", action: "test.4", subject: user.id)
        try store.append(later)
        #expect(try store.recentAuditEvents(limit: 10).map(\.id) == ([later] + events.reversed()).map(\.id))
        let connection = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 1000)
        var sequences: [Int] = []
        try connection.run("SELECT sequence FROM audit_log ORDER BY sequence", []) {
            sequences.append(try $0.int("sequence"))
        }
        #expect(sequences == [1, 2, 3, 4])
        #expect(throws: StoreError.self) { try connection.execute("DELETE FROM audit_log") }
        #expect(throws: StoreError.self) { try connection.execute("UPDATE audit_log SET actor = 'someone'") }
        // What version 15 is for: an append no longer writes sqlite_sequence, a link no table of its own.
        var counters = 0
        try connection.run("SELECT count(*) FROM sqlite_sequence WHERE name = 'audit_log'", []) {
            counters = Int($0.integer(at: 0))
        }
        #expect(counters == 0)
        var tables = 0
        try connection.run("SELECT count(*) FROM sqlite_schema WHERE name = 'device_session_families'", []) {
            tables = Int($0.integer(at: 0))
        }
        #expect(tables == 0)
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
        StoreBackends.register(SQLiteBackend())
        func path(_ text: String) throws -> String? { SQLiteBackend.path(of: try DatabaseURL(parsing: text)) }
        #expect(try path("sqlite:./portico-data/portico.db") == "./portico-data/portico.db")
        #expect(try path("sqlite:/var/lib/portico.db") == "/var/lib/portico.db")
        #expect(try path("sqlite:///var/lib/portico.db") == "/var/lib/portico.db")
        #expect(try path("sqlite::memory:") == ":memory:")
        #expect(try DatabaseURL(parsing: "sqlite:///var/lib/portico.db").description == "sqlite:/var/lib/portico.db")
        #expect(try DatabaseURL(parsing: " sqlite:/x.db ").scheme == "sqlite")
        for bad in ["", "sqlite:", "mysql://x", "./file.db", "http://x", ":x"] {
            #expect(throws: StoreError.unsupportedURL(bad)) { try DatabaseURL(parsing: bad) }
        }
    }

    @Test func aBackendOpensOnlyADatabaseThatExistsUnlessAskedToMakeOne() throws {
        StoreBackends.register(SQLiteBackend())
        let directory = try TemporaryDirectory()
        let url = try DatabaseURL(parsing: "sqlite:\(directory.databasePath())")
        #expect(throws: StoreError.databaseMissing(directory.databasePath())) {
            try StoreBackends.open(url, options: StoreOpening(creating: false))
        }
        #expect(!FileManager.default.fileExists(atPath: directory.databasePath()))
        let made = try StoreBackends.open(url, options: StoreOpening(creating: true))
        #expect(made.location == .file(path: directory.databasePath()))
        #expect(made.location.localDirectory == (directory.databasePath() as NSString).deletingLastPathComponent)
        made.close()
        try StoreBackends.open(url, options: StoreOpening(creating: false)).close()
        #expect(try StoreBackends.open("sqlite::memory:").location == .process)
    }

    @Test func opensARelativeSQLitePathAndCreatesItsDirectory() throws {
        let directory = try TemporaryDirectory()
        let previous = FileManager.default.currentDirectoryPath
        #expect(FileManager.default.changeCurrentDirectoryPath(directory.url.path))
        defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }
        let store = try openStore(url: "sqlite:./nested/dir/portico.db")
        defer { store.close() }
        try store.insert(StoreFixtures.user())
        #expect(
            FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("nested/dir/portico.db").path))
    }
}

/// The provider's refresh policy, with tokens that live a day as the migrated ones did.
private let refreshPolicy = RefreshTokenPolicy(tokenLifetime: 86_400, reuseGrace: 30)
