import PorticoServer
import PorticoStore

/// `portico migrate`: brings the database schema up to this build's version.
enum MigrateCommand {
    static let summary = "apply database schema migrations"
    static let usage = """
        usage: portico migrate [--database URL]

        Applies the schema migrations this portico knows and the database lacks, and makes the
        first signing keys (one each for RS256, ES256 and EdDSA) if there are none; running it
        again does nothing. `portico serve` does both on start too; this is for deployments
        that migrate before rolling out servers. Safe while a server runs.

          --database URL    sqlite:PATH or postgres://user@host:port/db
                            (PORTICO_DATABASE, default \(DatabaseOption.defaultURL))
        """

    static func run(_ arguments: inout Arguments, environment: [String: String]) throws {
        let url = try DatabaseOption.url(&arguments, environment: environment)
        try arguments.finish()
        let store = try DatabaseOption.open(url, migrate: false)
        defer { store.close() }
        let applied = try store.migrate()
        let version = try store.schemaVersion()
        if applied.isEmpty {
            print("schema is current (version \(version))")
        } else {
            let steps = applied.map(String.init).joined(separator: ", ")
            print("applied \(applied.count == 1 ? "migration" : "migrations") \(steps); schema version \(version)")
        }
        let created: [String]
        do {
            created = try SigningKeyProvisioning.ensureKeys(in: store)
        } catch {
            throw CommandLineError.failure("cannot make signing keys: \(error)")
        }
        if !created.isEmpty { print("made signing keys: \(created.joined(separator: ", "))") }
    }
}
