import PorticoServer
import PorticoStore

/// `portico migrate`: brings the database schema up to this build's version.
enum MigrateCommand {
    static let summary = "apply database schema migrations"
    static let usage = """
        usage: portico migrate [--database URL] [--key-file PATH]

        Applies the schema migrations this portico knows and the database lacks, and makes the
        first signing keys (one each for RS256, ES256, EdDSA and PS256) where there are none;
        running it again does nothing. `portico serve` does both on start too; this is for deployments
        that migrate before rolling out servers. Safe while a server runs.

          --database URL    sqlite:PATH or postgres://user@host:port/db
                            (PORTICO_DATABASE, default \(DatabaseOption.defaultURL))
          --key-file PATH   the key that encrypts the signing keys (PORTICO_KEY_FILE,
                            default DATABASE.key beside an SQLite database)
        """

    static func run(_ arguments: inout Arguments, environment: [String: String]) throws {
        let url = try DatabaseOption.url(&arguments, environment: environment)
        let keyFile = try KeyFileOption.path(&arguments, environment: environment)
        try arguments.finish()
        let store = try DatabaseOption.open(url, migrate: false, creating: true)
        defer { store.close() }
        let applied = try store.migrate()
        let version = try store.schemaVersion()
        if applied.isEmpty {
            print("schema is current (version \(version))")
        } else {
            let steps = applied.map(String.init).joined(separator: ", ")
            print("applied \(applied.count == 1 ? "migration" : "migrations") \(steps); schema version \(version)")
        }
        let encryption = try KeyFileOption.encryption(keyFile: keyFile, store: store)
        let created: [String]
        do {
            created = try SigningKeyProvisioning.ensureKeys(in: store, encryption: encryption)
        } catch {
            throw CommandLineError.failure("cannot make signing keys: \(error)")
        }
        if !created.isEmpty { print("made signing keys: \(created.joined(separator: ", "))") }
    }
}

/// The `--key-file` option of the commands that read or make signing keys.
enum KeyFileOption {
    /// `--key-file`, then `PORTICO_KEY_FILE`; nil for the default beside the database.
    static func path(_ arguments: inout Arguments, environment: [String: String]) throws -> String? {
        guard let path = try arguments.value("key-file") ?? environment["PORTICO_KEY_FILE"] else { return nil }
        guard !path.isEmpty, !path.contains("\u{0}") else {
            throw CommandLineError.usage("key-file must be a file path")
        }
        return path
    }

    /// The signing keys' encryption for `store`, or the one line that says why not.
    static func encryption(keyFile: String?, store: any Store) throws -> SigningKeyEncryption {
        do {
            return try SigningKeyEncryption.load(keyFile: keyFile, store: store)
        } catch {
            throw CommandLineError.failure(error.description)
        }
    }
}
