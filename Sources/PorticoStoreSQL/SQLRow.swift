import Foundation
import PorticoStore

/// One result row, read by column position, whatever the engine.
///
/// A backend gives the few readers whose form differs by engine (SQLite keeps a boolean as an
/// integer and bytes as a blob; PostgreSQL's text format spells them `t`/`f` and `\x…`); every
/// other reader is derived here once, so that a time, a list or a hash reads back the same on
/// every backend. Readers throw rather than trap on a value without its type's form: a damaged
/// or hand-edited database must not crash the server.
public protocol SQLRow {
    /// Whether the column is SQL NULL.
    func isNull(_ column: Int32) -> Bool

    /// The column as text (empty for NULL).
    func text(_ column: Int32) -> String

    /// The column as a 64-bit integer.
    func integer(_ column: Int32) throws -> Int64

    /// The column as a boolean.
    func bool(_ column: Int32) throws -> Bool

    /// The column's bytes (a blob or `bytea`).
    func bytes(_ column: Int32) throws -> [UInt8]
}

extension SQLRow {
    /// The column as text, nil for NULL.
    @inlinable public func optionalText(_ column: Int32) -> String? {
        isNull(column) ? nil : text(column)
    }

    /// The column as an integer, nil for NULL.
    @inlinable public func optionalInteger(_ column: Int32) throws -> Int64? {
        isNull(column) ? nil : try integer(column)
    }

    /// The column as an `Int`.
    @inlinable public func int(_ column: Int32) throws -> Int {
        Int(truncatingIfNeeded: try integer(column))
    }

    /// A time kept as whole Unix seconds.
    @inlinable public func date(_ column: Int32) throws -> Date {
        Date(timeIntervalSince1970: TimeInterval(try integer(column)))
    }

    /// A time, nil for NULL.
    @inlinable public func optionalDate(_ column: Int32) throws -> Date? {
        isNull(column) ? nil : try date(column)
    }

    /// The column's bytes, nil for NULL.
    @inlinable public func optionalBytes(_ column: Int32) throws -> [UInt8]? {
        isNull(column) ? nil : try bytes(column)
    }

    /// A stored hash as its base64url reference.
    @inlinable public func hashReference(_ column: Int32) throws -> String {
        SecretHash.reference(bytes: try bytes(column))
    }

    /// A stored hash as its reference, nil for NULL.
    @inlinable public func optionalHashReference(_ column: Int32) throws -> String? {
        isNull(column) ? nil : try hashReference(column)
    }

    /// A JSON list column; damaged text is reported, not trusted.
    @inlinable public func list(_ column: Int32) throws -> [String] {
        let stored = text(column)
        guard let strings = StringList.decode(stored) else {
            throw StoreError.corrupt("a stored list is not a JSON array of strings: \(stored.prefix(80))")
        }
        return strings
    }
}
