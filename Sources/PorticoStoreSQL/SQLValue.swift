import Foundation
import PorticoStore

/// A value bound to a statement parameter, the same for every SQL backend; the store never puts
/// values into SQL text.
///
/// The cases are what the engines bind differently (SQLite binds `bool` as the integer 0 or 1
/// and `bytes` as a blob; PostgreSQL sends `bool` as `t`/`f` and `bytes` as binary `bytea`); the
/// constructors are the store's conventions, kept here so that both backends write one form:
/// times as whole Unix seconds (``StoredTime``), lists as JSON arrays (``StringList``), secrets
/// only as their SHA-256 (``SecretHash``).
public enum SQLValue: Sendable {
    case null
    case integer(Int64)
    case text(String)
    case bytes([UInt8])
    case bool(Bool)

    /// A time as whole seconds since 1970, rounded down, as every column of time is kept.
    @inlinable public static func date(_ date: Date) -> SQLValue {
        .integer(StoredTime.seconds(date))
    }

    /// An optional time; nil binds as NULL.
    @inlinable public static func date(_ date: Date?) -> SQLValue {
        date.map { .integer(StoredTime.seconds($0)) } ?? .null
    }

    /// An optional text; nil binds as NULL.
    @inlinable public static func text(_ text: String?) -> SQLValue {
        text.map { .text($0) } ?? .null
    }

    /// Optional bytes; nil binds as NULL.
    @inlinable public static func bytes(_ bytes: [UInt8]?) -> SQLValue {
        bytes.map { .bytes($0) } ?? .null
    }

    /// A count or limit.
    @inlinable public static func int(_ value: Int) -> SQLValue {
        .integer(Int64(value))
    }

    /// A list of strings as a JSON array (scopes, redirect URIs), so that any string survives.
    @inlinable public static func list(_ strings: [String]) -> SQLValue {
        .text(StringList.encode(strings))
    }

    /// A hash given as its base64url reference; a malformed reference binds as NULL, which
    /// matches nothing.
    @inlinable public static func hash(reference: String?) -> SQLValue {
        guard let reference, let bytes = SecretHash.bytes(reference: reference) else { return .null }
        return .bytes(bytes)
    }

    /// A presented secret's SHA-256, the only form in which the store keeps or looks it up.
    @inlinable public static func digest(_ secret: String) -> SQLValue {
        .bytes(SecretHash.digest(secret))
    }
}
