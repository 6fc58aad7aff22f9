import PorticoStore

/// A transaction of an SQL backend, as the statements both SQL backends run need it: run a
/// statement, read its rows, know the engine's ``SQLDialect``.
///
/// The storage protocols of `PorticoStore` are implemented once, for every SQL backend, as
/// public extensions of this protocol, one file per storage concern (`SQLTransaction+Links.swift`
/// and so on). A backend's transaction type conforms to `SQLTransaction` and to the storage
/// protocols, and the extensions witness their requirements; the backend writes only what its
/// engine truly does differently.
///
/// # What stays per backend, and why
///
/// - The one-statement refresh rotation (``RefreshRotationStorage``): SQLite's single writer
///   makes a plain compare-and-swap atomic, while PostgreSQL's statement must lock the family's
///   row (`FOR UPDATE` in a CTE) so that a racing rotation waits and re-checks its condition.
/// - A bearer token's standing (``BearerAccessStorage``): SQLite answers with two cached
///   lookups from local pages; PostgreSQL with one statement, one round trip.
/// - Bulk loading (``BulkLoadStorage``): `COPY`-like batches on PostgreSQL, one prepared insert
///   per row on SQLite.
/// - The schema and its migrations (column types: `INTEGER`/`BLOB` against `boolean`/`bytea`,
///   and each engine's way to alter a table), PostgreSQL's change notifications and standing
///   feed, SQLite's checkpointer and connection strategy.
///
/// # Adding an SQL backend
///
/// 1. A connection that runs one statement with ``SQLValue`` parameters (`?` placeholders; turn
///    them into the engine's form if it has another) and a row type conforming to ``SQLRow``.
/// 2. A transaction type conforming to `SQLTransaction` and `StoreTransaction`, with the
///    engine's ``SQLDialect``; it maps the engine's errors onto ``StoreError``.
/// 3. The schema and migrations, the per-backend statements listed above, a `Store`, and one
///    registration by URL scheme in `portico`; then run the conformance suite of
///    `PorticoTesting` against it.
public protocol SQLTransaction: AnyObject {
    /// The row type the backend hands to decoders.
    associatedtype Row: SQLRow

    /// How the engine spells what differs.
    var dialect: SQLDialect { get }

    /// Runs a writing statement and returns how many rows it changed.
    @discardableResult func write(_ sql: String, _ values: [SQLValue]) throws -> Int

    /// The first row's decoded value, if any.
    func first<T>(_ sql: String, _ values: [SQLValue], _ decode: (Row) throws -> T) throws -> T?

    /// Every row, decoded.
    func all<T>(_ sql: String, _ values: [SQLValue], _ decode: (Row) throws -> T) throws -> [T]
}

extension SQLTransaction {
    /// Runs a writing statement, naming what a foreign-key failure refers to, as callers know it.
    @discardableResult
    public func write(_ sql: String, _ values: [SQLValue], referring reference: String) throws -> Int {
        do {
            return try write(sql, values)
        } catch StoreError.missingReference {
            throw StoreError.missingReference(reference)
        }
    }
}
