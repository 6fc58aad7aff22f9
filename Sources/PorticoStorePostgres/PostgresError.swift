import PorticoStore
import PorticoStoreSQL

/// A failure of libpq or of the server, classified by its SQLSTATE so that the store can decide
/// what to do (retry a transaction, report a taken value, give up on a connection) without
/// reading messages, and so that what reaches an operator is one line.
///
/// Messages hold the server's primary message or a condensed libpq one, never the URL's password
/// nor a row's values (a unique violation's detail names the key's value, which may be an e-mail
/// address; only its column names are kept).
struct PostgresError: Error, CustomStringConvertible {
    enum Kind: Equatable {
        /// `40001` serialization failure or `40P01` deadlock: the transaction was rolled back and
        /// running it again may succeed.
        case serializationFailure
        /// `23505`: a unique or primary key constraint; `columns` as the server names them.
        case uniqueViolation(columns: [String])
        /// `23503`: a row refers to one that does not exist.
        case foreignKeyViolation
        /// The server cannot be reached or went away: connection failures, class `08`,
        /// `57P01`…`57P03` (shut down, crashed, starting), `53300` (too many connections).
        case unavailable
        /// `57014` (a statement ran past `statement_timeout`) or `55P03` (a lock not available).
        case timeout
        /// Class `22` (data exception) and the other integrity constraints (`23502` not null,
        /// `23514` check): the value given cannot be kept.
        case invalidValue
        /// `25006`: a write inside a read-only transaction.
        case readOnly
        /// The URL cannot be used as it is written (no server was asked).
        case invalidURL
        /// A value read back does not have the form its column's type promises.
        case malformedValue
        /// Anything else (an SQL mistake of the store is one).
        case other
    }

    let kind: Kind
    /// The five-character SQLSTATE when the server sent one.
    let sqlState: String?
    let message: String

    var description: String {
        switch kind {
        case .invalidURL: "invalid PostgreSQL URL: \(message)"
        case .unavailable: "PostgreSQL: \(message)"
        default: sqlState.map { "PostgreSQL error \($0): \(message)" } ?? "PostgreSQL error: \(message)"
        }
    }

    /// Whether the whole transaction may be run again: only when the server rolled it back
    /// because of a concurrent one, never after a lost connection (the commit may have happened).
    var isRetryable: Bool { kind == .serializationFailure }

    /// The kind for a SQLSTATE (`detail` is the server's detail line, read for a unique
    /// violation's columns only).
    static func kind(sqlState: String, detail: String?) -> Kind {
        switch sqlState {
        case "40001", "40P01": return .serializationFailure
        case "23505": return .uniqueViolation(columns: detail.map(keyColumns(detail:)) ?? [])
        case "23503": return .foreignKeyViolation
        case "57P01", "57P02", "57P03", "53300": return .unavailable
        case "57014", "55P03": return .timeout
        case "25006": return .readOnly
        default: break
        }
        if sqlState.hasPrefix("08") { return .unavailable }
        if sqlState.hasPrefix("22") || sqlState.hasPrefix("23") { return .invalidValue }
        return .other
    }

    /// The columns of `Key (host_client_id, host_user_id)=(…) already exists.`
    static func keyColumns(detail: String) -> [String] {
        guard detail.hasPrefix("Key ("), let end = detail.range(of: ")=(") else { return [] }
        let list = detail[detail.index(detail.startIndex, offsetBy: 5)..<end.lowerBound]
        return list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The store's error for this failure, as the CLI and the server report it.
    var storeError: StoreError {
        switch kind {
        case .uniqueViolation(let columns):
            return .duplicate(field: Self.field(columns: columns))
        case .foreignKeyViolation:
            return .missingReference("row")
        case .serializationFailure:
            return .serializationFailure(message)
        case .timeout:
            return .conflict(message)
        case .unavailable:
            return .unavailable(message)
        case .invalidURL:
            return .backendUnavailable(description)
        case .invalidValue:
            return .invalidArgument(message)
        case .readOnly:
            return .misuse("a write operation inside a read-only transaction")
        case .malformedValue:
            return .corrupt(message)
        case .other:
            return .failure(description)
        }
    }

    /// The caller's name for a key's columns, as SQLite's backend names them.
    static func field(columns: [String]) -> String {
        guard !columns.isEmpty else { return "value" }
        return columns.map { column in
            switch column {
            case "email_normalized": "email"
            case "kid": "id"
            default: column
            }
        }.joined(separator: ", ")
    }
}
