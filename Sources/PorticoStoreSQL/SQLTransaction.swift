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
/// - The one-statement refresh rotation (``RefreshRotationStorage``): on PostgreSQL one
///   `UPDATE … FROM users … RETURNING`, whose row lock makes a racing rotation wait and re-check
///   its condition; on SQLite, whose single writer already serialises it, the compare-and-swap
///   and then one read. Both return ``refreshRotationColumnList``, which
///   ``decodeRefreshRotation(_:)`` reads.
/// - A bearer token's standing (``BearerAccessStorage``): SQLite answers with two cached
///   lookups from local pages; PostgreSQL with one statement, one round trip.
/// - Bulk loading (``BulkLoadStorage``): multi-row inserts of up to 1,000 rows on PostgreSQL
///   (a round trip per thousand rows), one prepared insert per row on SQLite.
/// - Purging's turn and its refresh-family slice (``SQLPurging``); the deletes are shared.
/// - The schema and its migrations (column types: `INTEGER`/`BLOB` against
///   `boolean`/`bigint`/`bytea`, and each engine's way to alter a table), PostgreSQL's change
///   notifications and standing feed, SQLite's checkpointer and connection strategy.
/// - Running a statement (`run`, `first`, `all`), over each engine's connection.
///
/// # Adding an SQL backend
///
/// 1. A connection that runs one statement with ``SQLValue`` parameters (`?` placeholders; turn
///    them into the engine's form if it has another) and a row type conforming to ``SQLRow``:
///    five positional readers, and the statement's ``SQLColumns``, made once per prepared
///    statement from the names the engine reports, so that decoders read columns by name.
/// 2. A transaction type conforming to `StoreTransaction`, `SQLTransaction` (with the engine's
///    ``SQLDialect``) and ``SQLPurging``; it maps the engine's errors onto ``StoreError``.
/// 3. The schema and migrations, the per-backend statements listed above, a `Store`, and one
///    registration by URL scheme in `portico`; then run `PorticoStoreConformance` (which needs
///    no server) against it.
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
    @inlinable @discardableResult
    public func write(_ sql: String, _ values: [SQLValue], referring reference: String) throws -> Int {
        do {
            return try write(sql, values)
        } catch StoreError.missingReference {
            throw StoreError.missingReference(reference)
        }
    }
}
