import Foundation
import PorticoStore

// The store's values as parameters and from rows, as SQLite's backend writes and reads them.
extension PostgresValue {
    static func bytes(_ bytes: [UInt8]?) -> PostgresValue {
        bytes.map { .bytes($0) } ?? .null
    }

    /// A list of strings as a JSON array (``StringList``), as SQLite's backend keeps lists.
    static func list(_ strings: [String]) -> PostgresValue {
        .text(StringList.encode(strings))
    }

    /// A hash given as its base64url reference; a malformed reference binds as NULL, which
    /// matches nothing.
    static func hash(reference: String?) -> PostgresValue {
        guard let reference, let bytes = SecretHash.bytes(reference: reference) else { return .null }
        return .bytes(bytes)
    }

    /// A presented secret's SHA-256, the only form in which the store keeps or looks it up.
    static func digest(_ secret: String) -> PostgresValue {
        .bytes(SecretHash.digest(secret))
    }
}

extension PostgresRow {
    /// A stored hash as its base64url reference.
    func hashReference(_ column: Int32) throws -> String {
        SecretHash.reference(bytes: try bytes(column))
    }

    func optionalHashReference(_ column: Int32) throws -> String? {
        isNull(column) ? nil : try hashReference(column)
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
