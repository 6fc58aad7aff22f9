import Foundation
import PorticoStore
import PorticoStoreSQL

/// ``StoreTransaction`` on one SQLite connection inside `BEGIN IMMEDIATE` (writes) or `BEGIN`
/// (reads). Lives only for the duration of the body passed to the store; afterwards every call
/// throws, so a transaction that escaped its closure cannot write outside a transaction.
final class SQLiteTransaction: StoreTransaction, SQLTransaction {
    /// SQLite's spelling of what differs (booleans are integers).
    let dialect = SQLDialect.sqlite
    private let connection: SQLiteConnection
    private let isReadOnly: Bool
    private var isFinished = false

    init(connection: SQLiteConnection, isReadOnly: Bool) {
        self.connection = connection
        self.isReadOnly = isReadOnly
    }

    /// Called by the store when the body has returned or thrown.
    func finish() {
        isFinished = true
    }

    // MARK: Helpers

    /// Runs a statement, handing each row to `row`.
    func run(_ sql: String, _ bindings: [SQLiteValue], row: (SQLiteRow) throws -> Void = { _ in }) throws {
        guard !isFinished else { throw StoreError.misuse("a transaction was used after its body returned") }
        try connection.run(sql, bindings, readOnly: isReadOnly, row: row)
    }

    /// Runs a writing statement and returns how many rows it changed.
    @discardableResult func write(_ sql: String, _ bindings: [SQLiteValue]) throws -> Int {
        try run(sql, bindings)
        return connection.changes
    }

    /// The first row's decoded value, if any.
    func first<T>(_ sql: String, _ bindings: [SQLiteValue], _ decode: (SQLiteRow) throws -> T) throws -> T? {
        var result: T?
        try run(sql, bindings) { row in
            if result == nil { result = try decode(row) }
        }
        return result
    }

    /// Every row, decoded.
    func all<T>(_ sql: String, _ bindings: [SQLiteValue], _ decode: (SQLiteRow) throws -> T) throws -> [T] {
        var result: [T] = []
        try run(sql, bindings) { result.append(try decode($0)) }
        return result
    }
}
