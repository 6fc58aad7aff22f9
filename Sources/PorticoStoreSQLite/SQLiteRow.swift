import CSQLite
import Foundation
import PorticoStore
import PorticoStoreSQL

/// The current result row of a statement (``SQLRow``: decoders read it by column name, through
/// the statement's ``SQLColumns``, which the connection built when it prepared the statement).
/// Valid only inside the row callback of ``SQLiteConnection/run(_:_:readOnly:row:)``.
struct SQLiteRow: SQLRow {
    let statement: OpaquePointer
    let columns: SQLColumns

    func isNull(at column: Int32) -> Bool {
        sqlite3_column_type(statement, column) == SQLITE_NULL
    }

    func integer(at column: Int32) -> Int64 {
        sqlite3_column_int64(statement, column)
    }

    func bool(at column: Int32) -> Bool {
        integer(at: column) != 0
    }

    func text(at column: Int32) -> String {
        guard let pointer = sqlite3_column_text(statement, column) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// The column's blob.
    func bytes(at column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let pointer = sqlite3_column_blob(statement, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
