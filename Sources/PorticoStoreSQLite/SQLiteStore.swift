import Foundation
import PorticoStore
import PorticoStoreSQL

/// The embedded backend: one SQLite file in WAL mode.
///
/// Safe to share among all HTTP threads. Each thread gets a connection of its own (or borrows
/// one, see ``SQLiteConnectionStrategy``). Write transactions queue first-come, first-served in
/// the process, then begin with `BEGIN IMMEDIATE` so that writers from other processes wait on
/// the busy timeout instead of deadlocking on a lock upgrade. Readers work on WAL snapshots
/// without waiting for writers. The schema is migrated when the
/// store opens unless asked not to.
public final class SQLiteStore: Store {
    /// The database file (or `:memory:`).
    public let path: String
    /// The migrations applied when this store was opened (empty if the schema was current or
    /// migration was not asked for).
    public let migrationsAppliedAtOpen: [Int]
    private let pool: SQLiteConnectionPool
    /// Runs this process's write transactions, queued in order ahead of SQLite's sleeping busy
    /// handler; nil for `:memory:`, whose one connection does everything.
    private let writer: SQLiteWriter?
    /// Queues the writers of `:memory:`.
    private let memoryWriters = FairLock()
    private let busyTimeout: TimeInterval
    private let checkpointer: SQLiteCheckpointer?

    /// The file on this machine, or this process for `:memory:`.
    public var location: StoreLocation { path == ":memory:" ? .process : .file(path: path) }

    /// The schema version this build understands; newer databases are refused.
    public static var supportedSchemaVersion: Int { SQLiteSchema.latestVersion }

    /// Opens (creating it and its directory if missing) the database at `path`.
    ///
    /// - Parameters:
    ///   - path: a file path, or `:memory:` for a private in-memory database (then a single
    ///     connection serves every thread, as each connection would see a different database).
    ///   - strategy: how connections are given to threads.
    ///   - busyTimeout: how long a writer waits for another before failing with
    ///     ``StoreError/conflict(_:)``.
    ///   - migrate: whether to apply missing migrations now; `portico migrate` passes false and
    ///     calls ``migrate()`` to report what it applied.
    ///   - backgroundCheckpoints: whether a thread of the store's own copies the write-ahead log
    ///     into the database (see ``SQLiteCheckpointer``) instead of the commit that happens to
    ///     fill it; for long-running servers, pointless for one-shot commands.
    /// - Throws: ``StoreError/schemaTooNew(found:supported:)`` for a database from a newer
    ///   Portico, ``StoreError/io(_:)`` or ``StoreError/corrupt(_:)`` when the file cannot be used.
    public init(
        path: String, strategy: SQLiteConnectionStrategy = .standard, busyTimeout: TimeInterval = 5,
        migrate: Bool = true, backgroundCheckpoints: Bool = false
    ) throws {
        let inMemory = path == ":memory:"
        if !inMemory { try SQLiteFilePermissions.prepare(path: path) }
        let milliseconds = Int32(clamping: Int((max(0, busyTimeout) * 1000).rounded()))
        let writerQueue = FairLock()
        let checkpointer =
            backgroundCheckpoints && !inMemory
            ? try SQLiteCheckpointer(
                path: path, busyTimeoutMilliseconds: milliseconds, writers: writerQueue,
                lockTimeout: max(busyTimeout, 1))
            : nil
        let open = {
            let connection = try SQLiteConnection(path: path, busyTimeoutMilliseconds: milliseconds)
            try checkpointer?.attach(connection)
            return connection
        }
        let writer = inMemory ? nil : SQLiteWriter(queue: writerQueue, open: open)
        let first: SQLiteConnection
        do {
            first = try open()
            try SQLiteSchema.checkNotTooNew(first)
            migrationsAppliedAtOpen = migrate ? try SQLiteSchema.migrate(first) : []
        } catch {
            checkpointer?.stop()
            throw error
        }
        self.checkpointer = checkpointer
        self.writer = writer
        self.path = path
        self.busyTimeout = max(busyTimeout, 1)
        pool = SQLiteConnectionPool(
            strategy: inMemory ? .pool(maximumConnections: 1) : strategy, waitTimeout: max(busyTimeout, 1), open: open)
        pool.adopt(first)
    }

    deinit {
        pool.close()
        writer?.close()
        checkpointer?.stop()
    }

    /// See ``Store/transaction(_:)``; begins with `BEGIN IMMEDIATE` on the writer connection.
    public func transaction<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        try withWriter { try Self.run(body, on: $0, readOnly: false) }
    }

    /// Runs `body` on the connection for writes, after every earlier writer of this process.
    ///
    /// The calling thread counts as busy in the pool meanwhile, so a transaction or read
    /// started inside `body` is refused as misuse instead of deadlocking or reading around it.
    private func withWriter<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        guard let writer else {
            return try pool.withConnection { connection in
                try memoryWriters.withLock(timeout: busyTimeout) { try body(connection) }
            }
        }
        return try pool.withThreadReserved { try writer.withConnection(timeout: busyTimeout, body) }
    }

    /// See ``Store/read(_:)``; a deferred transaction that only ever takes a read snapshot.
    public func read<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        try pool.withConnection { try Self.run(body, on: $0, readOnly: true) }
    }

    /// See ``Store/migrate()``.
    public func migrate() throws -> [Int] {
        try withWriter { try SQLiteSchema.migrate($0) }
    }

    /// See ``Store/schemaVersion()``.
    public func schemaVersion() throws -> Int {
        try pool.withConnection { try SQLiteSchema.version(of: $0) }
    }

    /// See ``Store/discardReplacedData()``: `VACUUM` rewrites the file without the free space
    /// where deleted rows linger, then a `TRUNCATE` checkpoint empties the log of older page
    /// images. It costs a rewrite of the database, which is why it runs only after secrets were
    /// replaced (a rare, operator-driven event), not for every delete.
    public func discardReplacedData() throws {
        try withWriter { connection in
            try connection.execute("VACUUM")
            try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    /// See ``Store/close()``.
    public func close() {
        pool.close()
        writer?.close()
        checkpointer?.stop()
    }

    /// Runs the integrity check and returns SQLite's report (`["ok"]` when sound), for
    /// operators and the crash-safety test.
    public func integrityCheck() throws -> [String] {
        try pool.withConnection { connection in
            var lines: [String] = []
            try connection.run("PRAGMA integrity_check", []) { lines.append($0.text(at: 0)) }
            return lines
        }
    }

    private static func run<T>(
        _ body: (any StoreTransaction) throws -> T, on connection: SQLiteConnection, readOnly: Bool
    ) throws -> T {
        // BEGIN and COMMIT go through the statement cache too: parsing them was measurable.
        try connection.run(readOnly ? "BEGIN" : "BEGIN IMMEDIATE", [])
        let transaction = SQLiteTransaction(connection: connection, isReadOnly: readOnly)
        let result: T
        do {
            result = try body(transaction)
            transaction.finish()
            try connection.run("COMMIT", [])
        } catch {
            transaction.finish()
            if connection.isInTransaction { try? connection.execute("ROLLBACK") }
            throw error
        }
        return result
    }
}
