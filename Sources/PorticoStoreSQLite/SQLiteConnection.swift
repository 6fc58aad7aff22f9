import CSQLite
import Foundation
import PorticoStore
import PorticoStoreSQL

/// One SQLite connection with its cache of prepared statements.
///
/// Opened with `SQLITE_OPEN_NOMUTEX`: SQLite does no locking of its own, because the store's
/// ``SQLiteConnectionPool`` hands a connection to one thread at a time. Statements are prepared
/// once per connection and reused, which saves most of the cost of small queries.
final class SQLiteConnection {
    let handle: OpaquePointer
    /// Prepared statements by their SQL, each with its result's column names (read once, here,
    /// so that rows resolve names without asking SQLite).
    private var statements: [String: (statement: OpaquePointer, columns: SQLColumns)] = [:]

    /// Opens (creating if needed) the database at `path` and sets the per-connection pragmas:
    /// WAL, `synchronous=NORMAL` (durable at checkpoints, never corrupt), foreign keys on and a
    /// busy timeout instead of immediate `SQLITE_BUSY`.
    init(path: String, busyTimeoutMilliseconds: Int32) throws {
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &opened, flags, nil)
        guard let opened else { throw StoreError.io("cannot open \(path): out of memory") }
        guard code == SQLITE_OK else {
            let message = String(cString: sqlite3_errmsg(opened))
            sqlite3_close_v2(opened)
            throw Self.error(code: code, message: "\(path): \(message)")
        }
        handle = opened
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
        do {
            try execute("PRAGMA journal_mode=WAL")
            try execute("PRAGMA synchronous=NORMAL")
            try execute("PRAGMA foreign_keys=ON")
        } catch {
            sqlite3_close_v2(handle)
            throw error
        }
    }

    deinit {
        for prepared in statements.values { sqlite3_finalize(prepared.statement) }
        sqlite3_close_v2(handle)
    }

    /// Runs SQL without parameters or results (pragmas, `BEGIN`, schema).
    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        if code != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw Self.error(code: code, message: text)
        }
    }

    /// Whether the connection is inside a transaction (autocommit off).
    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Runs one cached statement with `bindings`, hands each result row to `row`, and leaves
    /// the statement reset for its next use. Read-only connections refuse writing statements.
    func run(
        _ sql: String, _ bindings: [SQLiteValue], readOnly: Bool = false, row: (SQLiteRow) throws -> Void = { _ in }
    ) throws {
        let (statement, columns) = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        if readOnly && sqlite3_stmt_readonly(statement) == 0 {
            throw StoreError.misuse("a write operation inside a read-only transaction")
        }
        for (offset, value) in bindings.enumerated() {
            try bind(value, at: Int32(offset + 1), in: statement)
        }
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_ROW {
                try row(SQLiteRow(statement: statement, columns: columns))
            } else if code == SQLITE_DONE {
                return
            } else {
                throw Self.error(code: code, message: String(cString: sqlite3_errmsg(handle)))
            }
        }
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { Int(sqlite3_changes(handle)) }

    private func prepared(_ sql: String) throws -> (statement: OpaquePointer, columns: SQLColumns) {
        if let prepared = statements[sql] { return prepared }
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, portico_sqlite_prepare_persistent, &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw Self.error(code: code, message: String(cString: sqlite3_errmsg(handle)))
        }
        let names = (0..<sqlite3_column_count(statement)).map { column in
            sqlite3_column_name(statement, column).map { String(cString: $0) } ?? ""
        }
        let prepared = (statement: statement, columns: SQLColumns(names: names, statement: sql))
        statements[sql] = prepared
        return prepared
    }

    private func bind(_ value: SQLiteValue, at index: Int32, in statement: OpaquePointer) throws {
        let code: Int32
        switch value {
        case .null:
            code = sqlite3_bind_null(statement, index)
        case .integer(let integer):
            code = sqlite3_bind_int64(statement, index, integer)
        case .bool(let value):
            code = sqlite3_bind_int64(statement, index, value ? 1 : 0)
        case .text(let text):
            let count = text.utf8.count
            guard count <= Int(Int32.max) else { throw StoreError.invalidArgument("text too long") }
            // The C string holds every UTF-8 byte, interior NULs included; the length says where it ends.
            code = text.withCString { portico_sqlite3_bind_text_transient(statement, index, $0, Int32(count)) }
        case .bytes(let bytes):
            guard bytes.count <= Int(Int32.max) else { throw StoreError.invalidArgument("value too long") }
            if bytes.isEmpty {
                code = sqlite3_bind_zeroblob(statement, index, 0)
            } else {
                code = bytes.withUnsafeBytes {
                    portico_sqlite3_bind_blob_transient(statement, index, $0.baseAddress, Int32($0.count))
                }
            }
        }
        if code != SQLITE_OK {
            throw Self.error(code: code, message: String(cString: sqlite3_errmsg(handle)))
        }
    }

    /// The typed error for an SQLite result code and message.
    static func error(code: Int32, message: String) -> StoreError {
        switch code {
        case portico_sqlite_constraint_unique, portico_sqlite_constraint_primary_key:
            return .duplicate(field: duplicateField(message))
        case portico_sqlite_constraint_foreign_key:
            return .missingReference("row")
        default:
            break
        }
        switch code & 0xFF {
        case SQLITE_CONSTRAINT: return .invalidArgument(message)
        case SQLITE_BUSY, SQLITE_LOCKED: return .conflict(message)
        case SQLITE_CORRUPT, SQLITE_NOTADB: return .corrupt(message)
        case SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_PERM: return .io(message)
        case SQLITE_TOOBIG, SQLITE_RANGE, SQLITE_MISMATCH: return .invalidArgument(message)
        default: return .failure("database error \(code): \(message)")
        }
    }

    /// The caller's name for the column(s) of "UNIQUE constraint failed: users.email_normalized".
    static func duplicateField(_ message: String) -> String {
        guard let colon = message.lastIndex(of: ":") else { return "value" }
        let columns = message[message.index(after: colon)...].split(separator: ",").map { column in
            let name = column.split(separator: ".").last.map(String.init) ?? String(column)
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            switch trimmed {
            case "email_normalized": return "email"
            case "kid": return "id"
            default: return trimmed
            }
        }
        return columns.isEmpty ? "value" : columns.joined(separator: ", ")
    }
}
