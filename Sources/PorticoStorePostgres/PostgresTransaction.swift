import Foundation
import PorticoStore
import PorticoStoreSQL

/// ``StoreTransaction`` on one pooled connection inside `BEGIN` (READ COMMITTED) for writes or
/// `BEGIN … REPEATABLE READ READ ONLY` for reads. Lives only for the duration of the body passed
/// to the store; afterwards every call throws.
///
/// Under READ COMMITTED each statement sees what was committed before it began, and concurrent
/// writers of one row wait for each other, the later one re-checking its WHERE clause against
/// the row as the first left it. That is why every conditional primitive is one statement whose
/// condition is in its WHERE (`UPDATE … WHERE token_hash = $n`): of two racing transactions,
/// exactly one changes the row, and the other's count of changed rows is 0.
final class PostgresTransaction: StoreTransaction, SQLTransaction {
    /// PostgreSQL's spelling of what differs (booleans are `boolean`).
    let dialect = SQLDialect.postgres
    private let connection: PostgresConnection
    let isReadOnly: Bool
    private var isFinished = false
    /// The most statements the body may run (``PostgresStore/readOne(_:)`` and
    /// ``PostgresStore/writeOne(_:)``: one, outside any transaction); nil for no limit.
    private let statementLimit: Int?
    private var statementsRun = 0

    init(connection: PostgresConnection, isReadOnly: Bool, statementLimit: Int? = nil) {
        self.connection = connection
        self.isReadOnly = isReadOnly
        self.statementLimit = statementLimit
    }

    /// Called by the store when the body has returned or thrown.
    func finish() {
        isFinished = true
    }

    // MARK: Helpers

    /// Runs a statement (written with `?` placeholders, numbered here), handing each row to
    /// `row`; returns the rows changed or returned.
    @discardableResult
    func run(_ sql: String, _ parameters: [PostgresValue], row: (PostgresRow) throws -> Void = { _ in }) throws
        -> Int
    {
        guard !isFinished else { throw StoreError.misuse("a transaction was used after its body returned") }
        if let statementLimit {
            guard statementsRun < statementLimit else {
                throw StoreError.misuse(
                    "readOne or writeOne ran a second statement, which needs a transaction around both")
            }
            statementsRun += 1
        }
        do {
            return try connection.run(Self.numbered(sql), parameters, row: row)
        } catch let error as PostgresError {
            throw error.storeError
        }
    }

    /// Runs a writing statement and returns how many rows it changed.
    @discardableResult func write(_ sql: String, _ parameters: [PostgresValue]) throws -> Int {
        if isReadOnly { throw StoreError.misuse("a write operation inside a read-only transaction") }
        return try run(sql, parameters)
    }

    /// The first row's decoded value, if any.
    func first<T>(_ sql: String, _ parameters: [PostgresValue], _ decode: (PostgresRow) throws -> T) throws -> T? {
        var result: T?
        try run(sql, parameters) { row in
            if result == nil { result = try decode(row) }
        }
        return result
    }

    /// Every row, decoded.
    func all<T>(_ sql: String, _ parameters: [PostgresValue], _ decode: (PostgresRow) throws -> T) throws -> [T] {
        var result: [T] = []
        try run(sql, parameters) { result.append(try decode($0)) }
        return result
    }

    /// `sql` with its `?` placeholders numbered `$1`, `$2`, … (the store's SQL has no `?`
    /// elsewhere), so that statements read like SQLite's backend's. Runs for every statement, so
    /// it walks UTF-8 bytes, not characters (`?` is ASCII and never part of a longer UTF-8
    /// sequence): walking `Character`s cost an eighth of a refresh grant's CPU.
    static func numbered(_ sql: String) -> String {
        let question = UInt8(ascii: "?")
        guard sql.utf8.contains(question) else { return sql }
        var output: [UInt8] = []
        output.reserveCapacity(sql.utf8.count + 32)
        var next = 1
        for byte in sql.utf8 {
            if byte == question {
                output.append(UInt8(ascii: "$"))
                output.append(contentsOf: String(next).utf8)
                next += 1
            } else {
                output.append(byte)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
