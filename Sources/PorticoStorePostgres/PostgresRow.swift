import CLibPQ
import Foundation
import PorticoStoreSQL

/// One row of a result in libpq's text format (``SQLRow``: decoders read it by column name, through
/// the statement's ``SQLColumns``, which the connection built from the statement's first result).
/// Valid only inside the row callback of ``PostgresConnection/run(_:_:row:)``.
///
/// Readers throw ``PostgresError/Kind/malformedValue`` rather than trap when a value does not
/// have its type's form (it cannot happen with the store's own columns, but a damaged or
/// hand-edited schema must not crash the server).
struct PostgresRow: SQLRow {
    let result: OpaquePointer
    let index: Int32
    let columns: SQLColumns

    func isNull(at column: Int32) -> Bool {
        PQgetisnull(result, index, column) != 0
    }

    func text(at column: Int32) -> String {
        guard let value = PQgetvalue(result, index, column) else { return "" }
        let count = Int(PQgetlength(result, index, column))
        return value.withMemoryRebound(to: UInt8.self, capacity: count) {
            String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
        }
    }

    func integer(at column: Int32) throws -> Int64 {
        let value = text(at: column)
        guard let integer = Int64(value) else { throw malformed(column, "an integer", value) }
        return integer
    }

    func bool(at column: Int32) throws -> Bool {
        switch text(at: column) {
        case "t": return true
        case "f": return false
        case let value: throw malformed(column, "a boolean", value)
        }
    }

    /// A `bytea` value, which the text format gives as `\x` and two hex digits per byte.
    func bytes(at column: Int32) throws -> [UInt8] {
        let value = text(at: column)
        guard let bytes = Self.decodeHex(value) else { throw malformed(column, "bytea in hex form", value) }
        return bytes
    }

    static func decodeHex(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count >= 2, digits[0] == UInt8(ascii: "\\"), digits[1] == UInt8(ascii: "x"),
            digits.count % 2 == 0
        else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity((digits.count - 2) / 2)
        var position = 2
        while position < digits.count {
            guard let high = nibble(digits[position]), let low = nibble(digits[position + 1]) else { return nil }
            bytes.append(high << 4 | low)
            position += 2
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private func malformed(_ column: Int32, _ expected: String, _ value: String) -> PostgresError {
        let name = PQfname(result, column).map { String(cString: $0) } ?? "column \(column)"
        return PostgresError(
            kind: .malformedValue, sqlState: nil, message: "\(name) is not \(expected): \(value.prefix(40))")
    }
}
