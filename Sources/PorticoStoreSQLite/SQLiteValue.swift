import Foundation
import PorticoStore

/// A value bound to a statement parameter; the store never puts values into SQL text.
enum SQLiteValue {
    case null
    case integer(Int64)
    case text(String)
    case blob([UInt8])

    /// Times are stored as whole Unix seconds (PostgreSQL will use `timestamptz`).
    static func date(_ date: Date) -> SQLiteValue {
        .integer(seconds(date))
    }

    static func date(_ date: Date?) -> SQLiteValue {
        date.map { .integer(seconds($0)) } ?? .null
    }

    static func text(_ text: String?) -> SQLiteValue {
        text.map { .text($0) } ?? .null
    }

    static func bool(_ value: Bool) -> SQLiteValue {
        .integer(value ? 1 : 0)
    }

    static func int(_ value: Int) -> SQLiteValue {
        .integer(Int64(value))
    }

    /// A list of strings as a JSON array (scopes, redirect URIs), so that any string survives.
    static func list(_ strings: [String]) -> SQLiteValue {
        .text(StringList.encode(strings))
    }

    /// A hash given as its base64url reference; a malformed reference binds as NULL, which
    /// matches nothing.
    static func hash(reference: String?) -> SQLiteValue {
        guard let reference, let bytes = SecretHash.bytes(reference: reference) else { return .null }
        return .blob(bytes)
    }

    /// Whole seconds since 1970, clamped so that absurd dates cannot trap (``StoredTime``).
    static func seconds(_ date: Date) -> Int64 {
        StoredTime.seconds(date)
    }
}
