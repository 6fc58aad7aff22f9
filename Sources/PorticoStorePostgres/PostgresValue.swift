import Foundation

/// A value bound to a statement parameter; the store never puts values into SQL text.
///
/// Values travel in libpq's text format except `bytea`, which is sent in binary (the raw bytes,
/// no escaping). Times are whole Unix seconds in `bigint` columns, as SQLite's backend keeps
/// them: the two backends then truncate, compare and purge the same instants.
enum PostgresValue {
    case null
    case integer(Int64)
    case text(String)
    case bytes([UInt8])
    case bool(Bool)

    static func date(_ date: Date) -> PostgresValue {
        .integer(seconds(date))
    }

    static func date(_ date: Date?) -> PostgresValue {
        date.map { .integer(seconds($0)) } ?? .null
    }

    static func text(_ text: String?) -> PostgresValue {
        text.map { .text($0) } ?? .null
    }

    static func int(_ value: Int) -> PostgresValue {
        .integer(Int64(value))
    }

    /// Whole seconds since 1970, clamped so that absurd dates cannot trap.
    static func seconds(_ date: Date) -> Int64 {
        let value = date.timeIntervalSince1970.rounded(.down)
        guard value.isFinite else { return 0 }
        if value >= 9.0e15 { return 9_000_000_000_000_000 }
        if value <= -9.0e15 { return -9_000_000_000_000_000 }
        return Int64(value)
    }

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
