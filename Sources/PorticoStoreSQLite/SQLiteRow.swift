import CSQLite
import Foundation
import PorticoStore
import PorticoStoreSQL

/// The current result row of a statement, read by column index. Valid only inside the row
/// callback of ``SQLiteConnection/run(_:_:readOnly:row:)``.
struct SQLiteRow: SQLRow {
    let statement: OpaquePointer

    func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(statement, column) == SQLITE_NULL
    }

    func integer(_ column: Int32) -> Int64 {
        sqlite3_column_int64(statement, column)
    }

    func int(_ column: Int32) -> Int {
        Int(truncatingIfNeeded: integer(column))
    }

    func bool(_ column: Int32) -> Bool {
        integer(column) != 0
    }

    func text(_ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(statement, column) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    func optionalText(_ column: Int32) -> String? {
        isNull(column) ? nil : text(column)
    }

    func date(_ column: Int32) -> Date {
        Date(timeIntervalSince1970: TimeInterval(integer(column)))
    }

    func optionalDate(_ column: Int32) -> Date? {
        isNull(column) ? nil : date(column)
    }

    func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let pointer = sqlite3_column_blob(statement, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// The column's bytes (``SQLRow``'s name for a blob).
    func bytes(_ column: Int32) -> [UInt8] {
        blob(column)
    }

    func optionalBlob(_ column: Int32) -> [UInt8]? {
        isNull(column) ? nil : blob(column)
    }

    /// A stored hash as its base64url reference.
    func hashReference(_ column: Int32) -> String {
        SecretHash.reference(bytes: blob(column))
    }

    func optionalHashReference(_ column: Int32) -> String? {
        isNull(column) ? nil : hashReference(column)
    }

    /// A JSON list column; damaged text is reported, not trusted.
    func list(_ column: Int32) throws -> [String] {
        let stored = text(column)
        guard let strings = StringList.decode(stored) else {
            throw StoreError.corrupt("a stored list is not a JSON array of strings: \(stored.prefix(80))")
        }
        return strings
    }
}
