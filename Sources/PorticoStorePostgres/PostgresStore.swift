import Foundation
import PorticoStore
import PorticoStoreSQL
import Synchronization

/// The multi-node backend: a pool of libpq connections to one PostgreSQL database.
///
/// This is its foundation: connecting (one clear line when the URL, the server or the
/// credentials cannot be used), migrations, and transactions that retry what PostgreSQL asks to
/// be retried. The storage contract's primitives build on ``transaction(isolation:retrying:_:)``.
///
/// Every call blocks its thread on the network: call it from worker threads, never from an
/// event loop. Errors are ``StoreError``s.
public final class PostgresStore: Store {
    /// The newest schema version this build understands.
    public static var supportedSchemaVersion: Int { PostgresSchema.latestVersion }

    /// How many times a transaction the server rolled back for a conflict (`40001`, `40P01`)
    /// runs again before the conflict is reported.
    static let serializationRetries = 4

    /// The versions applied when the store was opened (empty when it was current).
    public let migrationsAppliedAtOpen: [Int]
    /// `user@host:port/db`, without the password, for logs and messages.
    public let target: String
    let pool: PostgresConnectionPool
    /// What ``standingGeneration`` reads, moved by the pool's connections and the listener.
    let standingFeed: PostgresStandingFeed
    /// Started by ``followStandingChanges()``.
    let listener: PostgresChangeListener
    /// The threads inside a transaction of this store, so that a nested one is refused as
    /// misuse instead of waiting for a connection that its own caller holds.
    private let activeThreads = Mutex<Set<ObjectIdentifier>>([])

    /// Opens the store: checks the URL, connects once (so a wrong password or an unknown database
    /// is reported now, not at the first request), refuses a newer schema, and applies missing
    /// migrations unless `migrate` is false.
    ///
    /// - Parameters:
    ///   - url: `postgres://user[:password]@host[:port]/db` or `postgresql://…`, with libpq's
    ///     query parameters (`sslmode`, `connect_timeout`, …).
    ///   - poolSize: the most connections the store opens (at least 1).
    ///   - migrate: whether to apply missing migrations now.
    ///   - checkoutTimeout: how long a caller waits for a connection when all are in use, before
    ///     ``StoreError/busy(_:)``.
    public init(url: String, poolSize: Int, migrate: Bool = true, checkoutTimeout: TimeInterval = 10) throws {
        let parsed: PostgresURL
        do {
            parsed = try PostgresURL(url)
        } catch {
            throw error.storeError
        }
        let feed = PostgresStandingFeed()
        let pool = PostgresConnectionPool(
            url: parsed, capacity: poolSize, checkoutTimeout: checkoutTimeout, feed: feed)
        do {
            migrationsAppliedAtOpen = try Self.storeErrors {
                try Self.withConnection(pool) { connection in
                    if migrate { return try PostgresSchema.migrate(connection) }
                    let found = try PostgresSchema.version(of: connection)
                    if found > PostgresSchema.latestVersion {
                        throw StoreError.schemaTooNew(found: found, supported: PostgresSchema.latestVersion)
                    }
                    return []
                }
            }
        } catch {
            pool.close()
            throw error
        }
        self.pool = pool
        target = parsed.target
        standingFeed = feed
        listener = PostgresChangeListener(url: parsed, feed: feed, pool: pool)
    }

    deinit {
        listener.stop()
    }

    /// See ``Store/transaction(_:)``: READ COMMITTED, in which every conditional primitive is
    /// atomic by its WHERE clause; a deadlock the server broke (`40P01`) runs the body again.
    public func transaction<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        try withTransaction(isolation: .readCommitted) { connection in
            let transaction = PostgresTransaction(connection: connection, isReadOnly: false)
            defer { transaction.finish() }
            return try body(transaction)
        }
    }

    /// See ``Store/read(_:)``: a REPEATABLE READ, READ ONLY snapshot, which neither waits for
    /// nor blocks writers.
    public func read<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        try withTransaction(isolation: .snapshot) { connection in
            let transaction = PostgresTransaction(connection: connection, isReadOnly: true)
            defer { transaction.finish() }
            return try body(transaction)
        }
    }

    /// See ``Store/readOne(_:)``: the body's one statement runs alone (autocommit), which is
    /// atomic by itself; a second statement throws ``StoreError/misuse(_:)``.
    public func readOne<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        try single(isReadOnly: true, body)
    }

    /// See ``Store/writeOne(_:)``: the body's one write runs alone (autocommit), atomic by
    /// itself, with no `BEGIN` or `COMMIT` round trip; a second statement throws
    /// ``StoreError/misuse(_:)``. A reused connection found lost before the statement completed
    /// runs it again on a fresh one (as every first statement): a compare-and-swap that did
    /// commit then finds its condition false.
    public func writeOne<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        try single(isReadOnly: false, body)
    }

    /// One statement alone on a pooled connection (autocommit): ``readOne(_:)`` and
    /// ``writeOne(_:)``.
    private func single<T>(isReadOnly: Bool, _ body: (any StoreTransaction) throws -> T) throws -> T {
        try outsideOtherTransactions {
            try Self.storeErrors {
                try Self.withConnection(pool) { connection in
                    let transaction = PostgresTransaction(
                        connection: connection, isReadOnly: isReadOnly, statementLimit: 1)
                    defer { transaction.finish() }
                    return try body(transaction)
                }
            }
        }
    }

    /// Applies the missing migrations and returns their versions (empty when current).
    @discardableResult
    public func migrate() throws -> [Int] {
        try Self.storeErrors { try Self.withConnection(pool) { try PostgresSchema.migrate($0) } }
    }

    /// The schema version of the database.
    public func schemaVersion() throws -> Int {
        try Self.storeErrors { try Self.withConnection(pool) { try PostgresSchema.version(of: $0) } }
    }

    /// A round trip to the server (and maybe a wait for a free connection) blocks the caller, so
    /// the provider runs every handler that touches this store on its worker pool, never on an
    /// epoll thread (DESIGN, "Concurrency and storage model").
    public var isRemote: Bool { true }

    /// A server that several nodes may share.
    public var location: StoreLocation { .server }

    /// Closes the idle connections; later calls throw ``StoreError/closed``.
    public func close() {
        listener.stop()
        pool.close()
    }

    /// How a transaction sees concurrent ones.
    enum Isolation: String {
        /// Each statement sees what was committed before it; concurrent writers of one row
        /// wait for each other. Conditional updates (`UPDATE … WHERE <expected> RETURNING`) and
        /// `SELECT … FOR UPDATE` make read-modify-write atomic here.
        case readCommitted = "READ COMMITTED"
        /// The whole transaction behaves as if it ran alone; a conflict is `40001` and the body
        /// runs again.
        case serializable = "SERIALIZABLE"
        /// One snapshot for the whole transaction, which may not write (``PostgresStore/read(_:)``).
        case snapshot = "REPEATABLE READ READ ONLY"
    }

    /// Runs `body` in one transaction on a pooled connection and commits it; any error rolls it
    /// back. When the server rolls it back for a conflict (`40001`, `40P01`) and `retrying` is
    /// true, the whole body runs again, up to ``serializationRetries`` times: a body that may be
    /// retried must have no effect outside the transaction. A connection that lost its server
    /// before the transaction began is replaced and the transaction begins on a fresh one; one
    /// lost later is reported (whether a commit happened is then unknown).
    @discardableResult
    func withTransaction<T>(
        isolation: Isolation = .readCommitted, retrying: Bool = true, _ body: (PostgresConnection) throws -> T
    ) throws -> T {
        try outsideOtherTransactions { try transactionBody(isolation: isolation, retrying: retrying, body) }
    }

    /// Runs `body`, or refuses it as misuse when this thread is inside a transaction of this
    /// store already (it would wait for a connection its own caller holds).
    private func outsideOtherTransactions<T>(_ body: () throws -> T) throws -> T {
        let thread = ObjectIdentifier(Thread.current)
        let entered = activeThreads.withLock { $0.insert(thread).inserted }
        guard entered else {
            throw StoreError.misuse("a transaction was started inside another transaction of the same store")
        }
        defer { _ = activeThreads.withLock { $0.remove(thread) } }
        return try body()
    }

    private func transactionBody<T>(
        isolation: Isolation, retrying: Bool, _ body: (PostgresConnection) throws -> T
    ) throws -> T {
        try Self.storeErrors {
            var attempt = 0
            while true {
                do {
                    return try Self.withConnection(pool) { connection in
                        // Sent with the body's first statement, in one round trip.
                        connection.begin("BEGIN ISOLATION LEVEL \(isolation.rawValue)")
                        do {
                            let value = try body(connection)
                            try connection.end("COMMIT")
                            return value
                        } catch {
                            try? connection.rollback()
                            throw error
                        }
                    }
                } catch  where retrying && Self.isRetryable(error) {
                    attempt += 1
                    if attempt > Self.serializationRetries { throw error }
                }
            }
        }
    }

    /// Runs `body` on a pooled connection. `body`'s first statement must be harmless to run
    /// twice (`BEGIN`, or a read): when it fails because a reused connection's server went away,
    /// nothing happened, and `body` runs again on another connection (at most once per connection
    /// the pool may hold, so that after a restart the last attempt is on a fresh one).
    static func withConnection<T>(_ pool: PostgresConnectionPool, _ body: (PostgresConnection) throws -> T) throws
        -> T
    {
        var stale = 0
        while true {
            let (connection, reused) = try pool.checkOut()
            defer { pool.checkIn(connection) }
            let before = connection.completedStatements
            do {
                return try body(connection)
            } catch let error as PostgresError
                where error.kind == .unavailable && reused && connection.completedStatements == before
                && stale < pool.capacity
            {
                stale += 1
            }
        }
    }

    /// Whether the server rolled the transaction back for a conflict: seen on BEGIN or COMMIT
    /// as libpq's error, inside the body as the store's (``PostgresTransaction`` maps them).
    static func isRetryable(_ error: any Error) -> Bool {
        switch error {
        case let error as PostgresError: error.isRetryable
        case let error as StoreError: error.isRetryable
        default: false
        }
    }

    /// Runs `body`, turning libpq's errors into the store's.
    static func storeErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PostgresError {
            throw error.storeError
        }
    }
}
