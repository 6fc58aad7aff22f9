import PorticoStoreSQL

/// A value bound to a statement parameter: the values both SQL backends bind (``SQLValue``).
///
/// Values travel in libpq's text format except `bytea`, which is sent in binary (the raw bytes,
/// no escaping). Times are whole Unix seconds in `bigint` columns, as SQLite's backend keeps
/// them: the two backends then truncate, compare and purge the same instants.
typealias PostgresValue = SQLValue

extension SQLValue {
    /// The parameter as libpq takes it: the bytes, and whether they are binary (`bytea`).
    /// `nil` bytes are SQL NULL. Text carries no terminating NUL: its length says where it
    /// ends, and PostgreSQL refuses a NUL inside text, which the store reports as invalid.
    var wire: (bytes: [UInt8]?, binary: Bool) {
        switch self {
        case .null: (nil, false)
        case .integer(let value): (Array(String(value).utf8), false)
        case .text(let text): (Array(text.utf8), false)
        case .bytes(let bytes): (bytes, true)
        case .bool(let value): (Array((value ? "t" : "f").utf8), false)
        }
    }
}
