import Foundation
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoStoreSQLite

/// `portico scope add` and `portico keys list` through the real binary.
@Suite struct ScopeAndKeysCommandTests {
    @Test func scopeAddThenClientMayUseIt() throws {
        let database = try CLIDatabase()
        let added = try database.portico(["scope", "add", "orders:read", "--description", "See your orders"])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("orders:read"))
        let client = try database.portico([
            "client", "add", "--name", "Orders", "--redirect-uri", "https://o.example/cb", "--scope", "openid",
            "--scope", "orders:read", "--json",
        ])
        #expect(client.status == 0, "\(client.stderr)")

        let store = try openStore(url: database.url)
        defer { store.close() }
        #expect(try store.productScope(name: "orders:read")?.description == "See your orders")
    }

    @Test func duplicateScopeFails() throws {
        let database = try CLIDatabase()
        #expect(try database.portico(["scope", "add", "wallet", "--description", "Pay"]).status == 0)
        let again = try database.portico(["scope", "add", "wallet", "--description", "Pay again"])
        #expect(again.status == 1)
        #expect(again.stderr == "portico: the scope wallet already exists\n")
    }

    @Test(arguments: [
        (["profile", "--description", "x"], "built-in scope"),
        (["openid", "--description", "x"], "built-in scope"),
        (["orders\"read", "--description", "x"], "not a scope token"),
        (["orders\\read", "--description", "x"], "not a scope token"),
        (["ordérs", "--description", "x"], "not a scope token"),
        (["orders:read"], "needs --description"),
        (["--description", "x"], "needs a scope NAME"),
        (["orders:read", "--description", " "], "must not be empty"),
    ])
    func invalidScopesGiveOneLineAndExitTwo(arguments: [String], message: String) throws {
        let database = try CLIDatabase()
        let result = try database.portico(["scope", "add"] + arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    /// An operator upgrading finds out what `migrate` did: a database an older Portico left one
    /// version behind gets the one missing step, named in the singular.
    @Test func migrateUpgradesAnOlderDatabaseOneStep() throws {
        let database = try CLIDatabase()
        let versions = SQLiteSchema.migrations.map(\.version)
        let latest = try #require(versions.last)
        do {
            let connection = try SQLiteConnection(
                path: database.directory.appendingPathComponent("portico.db").path, busyTimeoutMilliseconds: 1000)
            #expect(try SQLiteSchema.migrate(connection, upTo: latest - 1) == versions.dropLast())
        }
        // An older Portico made the file with the umask; owners chmod it on upgrade.
        #expect(chmod(database.directory.appendingPathComponent("portico.db").path, 0o600) == 0)
        let migrated = try database.portico(["migrate"])
        #expect(migrated.status == 0, "\(migrated.stderr)")
        #expect(
            migrated.stdout.hasPrefix("applied migration \(latest); schema version \(latest)\n"), "\(migrated.stdout)")
        #expect(try database.portico(["migrate"]).stdout.hasPrefix("schema is current (version \(latest))"))
    }

    @Test func migrateMakesOneKeyPerAlgorithmAndKeysListShowsThem() throws {
        let database = try CLIDatabase()
        let empty = try database.portico(["keys", "list", "--json"])
        #expect(empty.status == 0)
        #expect(cliJSON(empty.stdout) == .array([]))

        let migrated = try database.portico(["migrate"])
        #expect(migrated.status == 0, "\(migrated.stderr)")
        #expect(migrated.stdout.contains("RS256, ES256, EdDSA, PS256"))
        #expect(!(try database.portico(["migrate"]).stdout.contains("made signing keys")))

        let json = try database.portico(["keys", "list", "--json"])
        let keys = try #require(cliJSON(json.stdout)?.arrayValue)
        #expect(keys.count == 4)
        let algorithms = Set(keys.compactMap { $0.objectValue?["alg"]?.stringValue })
        #expect(algorithms == ["RS256", "ES256", "EdDSA", "PS256"])
        for key in keys {
            let object = try #require(key.objectValue)
            #expect(Set(object.keys) == ["kid", "alg", "state", "current", "created", "signs_from"])
            #expect(object["state"]?.stringValue == "active")
            #expect(object["current"] == .bool(true))
        }
        let human = try database.portico(["keys", "list"])
        #expect(human.stdout.contains("KID"))
        #expect(human.stdout.split(separator: "\n").count == 5)
        #expect(!human.stdout.contains("PRIVATE KEY"))
    }

    @Test func serveMakesTheKeysTooAndKeysListReadsThemWhileItRuns() async throws {
        try await ProviderHarness.with { harness in
            let json = try harness.portico(["keys", "list", "--json"])
            #expect(json.status == 0)
            #expect(cliJSON(json.stdout)?.arrayValue?.count == 4)
        }
    }
}
