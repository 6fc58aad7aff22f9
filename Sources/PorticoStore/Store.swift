import Foundation

/// The identity provider's persistence, whatever the database.
///
/// A store is shared by every HTTP thread: it is `Sendable` and its calls are synchronous, so
/// CPU-only handlers can use it directly on the server's threads. Work happens in transactions:
/// ``transaction(_:)`` for writes that must commit together (redeeming a code, starting a
/// refresh family and recording what it issued are one transaction; a request may use several,
/// a password sign-in uses three or four: reserving a throttled attempt, reading the account,
/// settling the attempt, starting the session), and ``read(_:)`` for consistent
/// reads that never wait for writers. Single operations are also available on the store itself
/// (see the extension), each in its own transaction.
///
/// What a backend must guarantee (atomic primitives, rows changed, time precision, retries) is
/// in ``StoreTransaction``'s "Implementation requirements".
///
/// The interface has no database types: ids are strings, times `Date`, scopes `[String]` or
/// `Set<String>`, so SQLite and PostgreSQL implement the same protocol. Failures are
/// ``StoreError``s; errors thrown by a body roll the transaction back and are rethrown as they
/// are.
public protocol Store: Sendable {
    /// Runs `body` in a write transaction and commits if it returns, rolls back if it throws.
    ///
    /// Do not start another transaction on the same store from inside `body`: use the one you
    /// have (a nested call throws ``StoreError/misuse(_:)``).
    func transaction<T>(_ body: (any StoreTransaction) throws -> T) throws -> T

    /// Runs `body` in a read-only transaction: a consistent snapshot that neither waits for nor
    /// blocks writers. Write operations inside it throw ``StoreError/misuse(_:)``.
    func read<T>(_ body: (any StoreTransaction) throws -> T) throws -> T

    /// Runs `body`, which makes one read call on the transaction it is given, where that costs
    /// least. Every operation is atomic by itself (``StoreTransaction``'s "Implementation
    /// requirements"), so a single one needs no snapshot around it: PostgreSQL sends its one
    /// statement alone, one round trip instead of three (`BEGIN`, the read, `COMMIT`), and
    /// refuses a second statement with ``StoreError/misuse(_:)``; other backends run `body` as
    /// ``read(_:)`` (the default). For operations that are one statement on every backend, such
    /// as ``BearerAccessStorage/accessTokenStanding(id:userID:clientID:issuedAt:)``.
    func readOne<T>(_ body: (any StoreTransaction) throws -> T) throws -> T

    /// Runs `body`, which makes one write call on the transaction it is given, where that costs
    /// least: as ``readOne(_:)`` for a write that is one atomic statement on every backend (a
    /// conditional update that also returns what it read, such as
    /// ``RefreshRotationStorage/rotateRefreshToken(familyID:from:to:clientID:now:expiresAt:)``).
    /// PostgreSQL runs the statement alone (autocommit), with no `BEGIN` or `COMMIT`; other
    /// backends run `body` as ``transaction(_:)`` (the default). The body must not throw after
    /// its write (nothing would roll it back), and its write must be a compare-and-swap, which
    /// finds its condition false if it is ever run a second time.
    func writeOne<T>(_ body: (any StoreTransaction) throws -> T) throws -> T

    /// Applies the schema migrations this build knows and the database lacks, and returns their
    /// versions in order (empty when the schema is current), for `portico migrate` to report.
    @discardableResult func migrate() throws -> [Int]

    /// The schema version the database is at.
    func schemaVersion() throws -> Int

    /// Closes the store's connections; later calls throw ``StoreError/closed``.
    func close()

    /// Whether a call may wait on the network (a database server) rather than only on local
    /// disk. A provider then runs every handler that touches the store on its worker pool,
    /// never on an epoll thread (DESIGN, "Concurrency and storage model"). False by default
    /// (see `Store+Placement.swift`); a remote backend says true.
    var isRemote: Bool { get }

    /// Where the data lives, for the files the provider keeps beside it (the key file of the
    /// signing keys, the mail outbox): a file on this machine, this process, or a server.
    var location: StoreLocation { get }

    /// Leaves no copy of deleted or replaced data in the backend's own files (SQLite: copies the
    /// write-ahead log into the database and truncates it), after a secret was replaced, such
    /// as a plain signing key sealed on upgrade. A backend without such files does nothing.
    func discardReplacedData() throws
}

extension Store {
    /// A read transaction; see the requirement.
    public func readOne<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        try read(body)
    }

    /// A write transaction; see the requirement.
    public func writeOne<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        try transaction(body)
    }

    /// Nothing to discard; see the requirement.
    public func discardReplacedData() throws {}
}
