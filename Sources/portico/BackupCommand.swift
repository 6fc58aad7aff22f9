import Foundation
import PorticoStore
import PorticoStoreSQLite

/// `portico backup --to PATH`: a consistent copy of a live SQLite database, made while servers
/// keep serving (SQLite's online backup API), usable as `--database sqlite:PATH`.
///
/// A PostgreSQL database is copied with PostgreSQL's own tools, which know its files, its
/// write-ahead log and its replicas: the command names them and does nothing else.
enum BackupCommand {
    static let summary = "copy a live SQLite database to a new file"
    static let usage = """
        usage: portico backup --to PATH [--database URL] [--key-file PATH]

        Copies the SQLite database to the new file PATH while servers keep using it: the copy
        is the database as of one moment (SQLite's online backup API; writers are not held
        up), checked with PRAGMA integrity_check, and named PATH only once complete. An
        existing PATH is never replaced. Restore by stopping the servers and starting one
        with --database sqlite:PATH (or by moving PATH into the database's place).

        The copy holds the signing keys sealed with the key file, not the key file itself:
        keep the key file (PATH.key, --key-file or PORTICO_KEY_FILE when starting on the copy)
        somewhere safe and apart from the backups; without it the copy cannot sign, and every
        signing key must be replaced.

        On PostgreSQL, use PostgreSQL's tools instead: pg_dump for this database
        (pg_dump -Fc, restored with pg_restore), pg_basebackup for the whole server (with
        WAL archiving, to any point in time). The command says so and exits with status 1.

          --to PATH         the new file
          --database URL    sqlite:PATH (PORTICO_DATABASE, default \(DatabaseOption.defaultURL))
          --key-file PATH   the key that encrypts the signing keys (PORTICO_KEY_FILE,
                            default DATABASE.key beside the database), named in the reminder
        """

    static func run(_ arguments: inout Arguments, environment: [String: String]) throws {
        let url = try DatabaseOption.url(&arguments, environment: environment)
        let keyFile = try KeyFileOption.path(&arguments, environment: environment)
        guard let destination = try arguments.value("to") else {
            throw CommandLineError.usage("backup needs --to PATH, the new file to write; try 'portico backup --help'")
        }
        guard !destination.isEmpty, !destination.contains("\u{0}") else {
            throw CommandLineError.usage("--to must be a file path")
        }
        try arguments.finish()
        let parsed: DatabaseURL
        do {
            parsed = try DatabaseURL(parsing: url)
        } catch {
            throw CommandLineError.usage("cannot use the database URL \(DatabaseOption.displayed(url)): \(error)")
        }
        guard let source = SQLiteBackend.path(of: parsed) else {
            throw CommandLineError.failure(
                "backup copies SQLite databases; for PostgreSQL use its own tools: "
                    + "pg_dump -Fc (this database, restored with pg_restore) or pg_basebackup (the whole server)")
        }
        guard source != ":memory:" else {
            throw CommandLineError.failure(
                "an in-memory database lives only in its own process; there is nothing to copy")
        }
        let report: SQLiteBackup.Report
        do {
            report = try SQLiteBackup.copy(from: source, to: destination)
        } catch StoreError.io(let reason) {
            throw CommandLineError.failure("cannot back up \(source): \(reason)")
        } catch StoreError.databaseMissing(let path) {
            throw CommandLineError.failure("no database at \(path): check --database (or PORTICO_DATABASE)")
        } catch {
            throw CommandLineError.failure("cannot back up \(source): \(error)")
        }
        let key = keyFile ?? source + ".key"
        print("copied \(source) to \(destination) (\(report.pages) pages, \(report.bytes) bytes; integrity ok)")
        print(
            "remember: the copy cannot sign without the key file \(key); start a server on it with "
                + "--database sqlite:\(destination) --key-file \(key) (or put a copy of the key at \(destination).key), "
                + "and keep the key apart from the backups")
        if !FileManager.default.fileExists(atPath: key) {
            FileHandle.standardError.write(
                Data(
                    "portico: warning: there is no key file at \(key); name the one the servers use with --key-file\n"
                        .utf8))
        }
    }
}
