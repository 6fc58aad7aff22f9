import Foundation
import PorticoStore

/// One result row, read by column name, whatever the engine.
///
/// Decoders name the columns they read (`row.text("client_id")`, `row.optionalDate("expires_at")`):
/// a position would shift under every later reader when a column is added to or moved in a
/// `SELECT`, silently. The row's ``columns`` turn a name into a position, cheaply (see
/// ``SQLColumns``), and a name the statement does not return throws ``StoreError/misuse(_:)``
/// naming the column and the statement.
///
/// A backend gives the few positional readers whose form differs by engine (SQLite keeps a
/// boolean as an integer and bytes as a blob; PostgreSQL's text format spells them `t`/`f` and
/// `\x…`); every reader by name is derived here once, so that a time, a list or a hash reads back
/// the same on every backend. Readers throw rather than trap on a value without its type's form:
/// a damaged or hand-edited database must not crash the server. The positional readers (`at:`)
/// are the backend's side of the contract; decoders use names.
public protocol SQLRow {
    /// The statement's column names, shared by all its rows.
    var columns: SQLColumns { get }

    /// Whether the column at `column` is SQL NULL.
    func isNull(at column: Int32) -> Bool

    /// The column at `column` as text (empty for NULL).
    func text(at column: Int32) -> String

    /// The column at `column` as a 64-bit integer.
    func integer(at column: Int32) throws -> Int64

    /// The column at `column` as a boolean.
    func bool(at column: Int32) throws -> Bool

    /// The bytes of the column at `column` (a blob or `bytea`).
    func bytes(at column: Int32) throws -> [UInt8]
}

extension SQLRow {
    /// Whether the column is SQL NULL.
    @inlinable public func isNull(_ name: String) throws -> Bool {
        isNull(at: try columns.index(of: name))
    }

    /// The column as text (empty for NULL).
    @inlinable public func text(_ name: String) throws -> String {
        text(at: try columns.index(of: name))
    }

    /// The column as text, nil for NULL.
    @inlinable public func optionalText(_ name: String) throws -> String? {
        let column = try columns.index(of: name)
        return isNull(at: column) ? nil : text(at: column)
    }

    /// The column as a 64-bit integer.
    @inlinable public func integer(_ name: String) throws -> Int64 {
        try integer(at: try columns.index(of: name))
    }

    /// The column as an integer, nil for NULL.
    @inlinable public func optionalInteger(_ name: String) throws -> Int64? {
        let column = try columns.index(of: name)
        return isNull(at: column) ? nil : try integer(at: column)
    }

    /// The column as an `Int`.
    @inlinable public func int(_ name: String) throws -> Int {
        Int(truncatingIfNeeded: try integer(name))
    }

    /// The column as a boolean.
    @inlinable public func bool(_ name: String) throws -> Bool {
        try bool(at: try columns.index(of: name))
    }

    /// A time kept as whole Unix seconds.
    @inlinable public func date(_ name: String) throws -> Date {
        Date(timeIntervalSince1970: TimeInterval(try integer(name)))
    }

    /// A time, nil for NULL.
    @inlinable public func optionalDate(_ name: String) throws -> Date? {
        try optionalInteger(name).map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }

    /// The column's bytes (a blob or `bytea`).
    @inlinable public func bytes(_ name: String) throws -> [UInt8] {
        try bytes(at: try columns.index(of: name))
    }

    /// The column's bytes, nil for NULL.
    @inlinable public func optionalBytes(_ name: String) throws -> [UInt8]? {
        let column = try columns.index(of: name)
        return isNull(at: column) ? nil : try bytes(at: column)
    }

    /// A stored hash as its base64url reference.
    @inlinable public func hashReference(_ name: String) throws -> String {
        SecretHash.reference(bytes: try bytes(name))
    }

    /// A stored hash as its reference, nil for NULL.
    @inlinable public func optionalHashReference(_ name: String) throws -> String? {
        try optionalBytes(name).map { SecretHash.reference(bytes: $0) }
    }

    /// A JSON list column; damaged text is reported, not trusted.
    @inlinable public func list(_ name: String) throws -> [String] {
        let stored = try text(name)
        guard let strings = StringList.decode(stored) else {
            throw StoreError.corrupt("a stored list is not a JSON array of strings: \(stored.prefix(80))")
        }
        return strings
    }
}
