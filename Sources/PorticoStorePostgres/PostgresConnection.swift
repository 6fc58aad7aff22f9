import CLibPQ
import Foundation
import PorticoStoreSQL

/// One libpq connection with its prepared statements.
///
/// Not thread-safe: the ``PostgresConnectionPool`` hands a connection to one thread at a time.
/// Every statement with values is prepared once per connection (`PQprepare`) and then run with
/// its parameters bound (`PQexecPrepared`); values never enter SQL text. libpq blocks the
/// calling thread, so this is for worker threads, never an event loop.
final class PostgresConnection {
    let handle: OpaquePointer
    private var statements: [String: PreparedStatement] = [:]
    let target: String
    /// Statements that succeeded on this connection (the store tells from it whether a failure
    /// was the first statement of a checkout).
    private(set) var completedStatements = 0
    /// A `BEGIN …` not sent yet: it goes out with the transaction's first statement, in one
    /// round trip (libpq's pipeline mode), and a transaction that runs no statement sends none.
    private var deferredBegin: String?
    /// Whether this session listens for notifications (``listen(to:)``).
    var isListening = false
    /// Notifications received and not yet reported (``takeNotifications()``).
    var unreportedNotifications = 0

    /// Connects; a failure is ``PostgresError/Kind/unavailable`` with one line saying why
    /// (refused, unknown host, authentication, unknown database).
    init(url: PostgresURL) throws(PostgresError) {
        let parameters = url.parameters
        let connection = Self.withCStrings(parameters.map(\.0)) { keywords in
            Self.withCStrings(parameters.map(\.1)) { values in
                PQconnectdbParams(keywords, values, 1)
            }
        }
        guard let connection else {
            throw PostgresError(kind: .unavailable, sqlState: nil, message: "libpq is out of memory")
        }
        target = url.target
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection))
            PQfinish(connection)
            throw PostgresError(
                kind: .unavailable, sqlState: nil,
                message: "cannot connect to \(url.target): \(Self.connectionFailureReason(message))")
        }
        handle = connection
        portico_pq_silence_notices(handle)
    }

    deinit {
        PQfinish(handle)
    }

    /// Whether libpq still considers the connection usable. A server that went away is noticed
    /// only when the connection is next used; the pool retries a fresh connection then.
    var isBroken: Bool { PQstatus(handle) != CONNECTION_OK }

    /// Whether the server closed this idle connection or said why it will (a shutdown or
    /// `pg_terminate_backend` sends an error, then closes). A session that does not listen for
    /// notifications is sent nothing while idle, so anything readable means it is done (at worst
    /// a rare parameter report, and then a reconnect costs little); a listening one reads what
    /// came and is done only if that was not notifications (which it keeps for
    /// ``takeNotifications()``) or libpq found the end of the connection. One `poll` with no wait.
    func hasLostServer() -> Bool {
        if isBroken { return true }
        let socket = PQsocket(handle)
        guard socket >= 0 else { return true }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 0) != 0 else { return false }
        guard isListening else { return true }
        let before = unreportedNotifications
        guard consumeInput() else { return true }
        return collectNotifications() == before
    }

    /// Whether a transaction is open (or failed and not yet rolled back).
    var isInTransaction: Bool {
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// Begins a transaction with `sql` (`BEGIN ISOLATION LEVEL …`), sent with the first
    /// statement that follows (``run(_:_:row:)``) so that it costs no round trip of its own.
    func begin(_ sql: String) {
        deferredBegin = sql
    }

    /// Ends the transaction begun with ``begin(_:)`` by `sql` (`COMMIT` or `ROLLBACK`); when no
    /// statement ran, nothing was sent and nothing is.
    func end(_ sql: String) throws(PostgresError) {
        if deferredBegin != nil {
            deferredBegin = nil
            return
        }
        try execute(sql)
    }

    /// Rolls back the transaction, if one was begun (also one whose `BEGIN` is still unsent).
    func rollback() throws(PostgresError) {
        deferredBegin = nil
        if isInTransaction { try execute("ROLLBACK") }
    }

    /// Runs SQL without parameters or results (`BEGIN`, `COMMIT`, schema statements).
    func execute(_ sql: String) throws(PostgresError) {
        if let begin = deferredBegin {
            deferredBegin = nil
            try execute(begin)
        }
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result)
        completedStatements += 1
    }

    /// Runs one prepared statement with `parameters` bound, hands each result row to `row`, and
    /// returns the rows the statement changed (INSERT, UPDATE, DELETE, also with `RETURNING`) or
    /// returned (SELECT).
    @discardableResult
    func run(_ sql: String, _ parameters: [PostgresValue], row: (PostgresRow) throws -> Void = { _ in }) throws
        -> Int
    {
        let wire = parameters.map(\.wire)
        if wire.contains(where: { !$0.binary && $0.bytes?.contains(0) == true }) {
            throw PostgresError(
                kind: .invalidValue, sqlState: nil, message: "PostgreSQL text cannot hold a NUL character")
        }
        let lengths = wire.map { Int32(clamping: $0.bytes?.count ?? 0) }
        let formats = wire.map { Int32($0.binary ? 1 : 0) }
        let result: OpaquePointer?
        let statement: PreparedStatement
        if let begin = deferredBegin {
            deferredBegin = nil
            let sent = try Self.withParameterPointers(wire.map(\.bytes)) { values throws(PostgresError) in
                try pipelined(
                    begin: begin, sql, count: Int32(parameters.count), values: values, lengths: lengths,
                    formats: formats)
            }
            result = sent.result
            statement = sent.statement
        } else {
            statement = try prepared(sql, parameterCount: parameters.count)
            result = Self.withParameterPointers(wire.map(\.bytes)) { values in
                PQexecPrepared(handle, statement.name, Int32(parameters.count), values, lengths, formats, 0)
            }
        }
        defer { PQclear(result) }
        try check(result)
        completedStatements += 1
        guard let result else { return 0 }
        let count = PQntuples(result)
        if count > 0 {
            let columns = statement.columns(of: result, sql: sql)
            for index in 0..<count {
                try row(PostgresRow(result: result, index: index, columns: columns))
            }
        }
        if let changed = Int(String(cString: PQcmdTuples(result))) { return changed }
        return Int(count)
    }

    /// Sends `begin`, the statement's `PQprepare` if this connection has not prepared it yet, and
    /// the statement itself in one pipeline, and returns the statement's result: one round trip
    /// where there would be two or three. A failure before the statement is thrown (the server
    /// skips what follows a failure in a pipeline).
    private func pipelined(
        begin: String, _ sql: String, count: Int32, values: UnsafePointer<UnsafePointer<CChar>?>?,
        lengths: [Int32], formats: [Int32]
    ) throws(PostgresError) -> PipelinedResult {
        let known = statements[sql]
        guard PQenterPipelineMode(handle) == 1 else {
            // Only refused when the connection is busy, which it never is between statements.
            try execute(begin)
            let statement = try prepared(sql, parameterCount: Int(count))
            return PipelinedResult(
                result: PQexecPrepared(handle, statement.name, count, values, lengths, formats, 0), statement: statement
            )
        }
        let statement = known ?? PreparedStatement(name: "portico_\(statements.count + 1)")
        let name = statement.name
        var sent = PQsendQueryParams(handle, begin, 0, nil, nil, nil, nil, 0) == 1
        if sent && known == nil { sent = PQsendPrepare(handle, name, sql, count, nil) == 1 }
        if sent { sent = PQsendQueryPrepared(handle, name, count, values, lengths, formats, 0) == 1 }
        if sent { sent = PQpipelineSync(handle) == 1 }
        // Each query's result is followed by a null; the sync's result ends the pipeline. A lost
        // connection ends it early with a null.
        var results: [OpaquePointer] = []
        if sent {
            while let result = PQgetResult(handle) {
                if PQresultStatus(result) == PGRES_PIPELINE_SYNC {
                    PQclear(result)
                    break
                }
                results.append(result)
                if let extra = PQgetResult(handle) { PQclear(extra) }
            }
        }
        PQexitPipelineMode(handle)
        let expected = known == nil ? 3 : 2
        let statementResult = results.count == expected ? results.last : nil
        defer { for result in results where result != statementResult { PQclear(result) } }
        for result in results where result != statementResult {
            try check(result)
            completedStatements += 1
        }
        guard let statementResult else {
            try check(nil)
            return PipelinedResult(result: nil, statement: statement)
        }
        if known == nil { statements[sql] = statement }
        return PipelinedResult(result: statementResult, statement: statement)
    }

    /// What ``pipelined(begin:_:count:values:lengths:formats:)`` returns: the statement's result
    /// and the statement it ran.
    private struct PipelinedResult {
        let result: OpaquePointer?
        let statement: PreparedStatement
    }

    private func prepared(_ sql: String, parameterCount: Int) throws(PostgresError) -> PreparedStatement {
        if let statement = statements[sql] { return statement }
        let statement = PreparedStatement(name: "portico_\(statements.count + 1)")
        let result = PQprepare(handle, statement.name, sql, Int32(parameterCount), nil)
        defer { PQclear(result) }
        try check(result)
        statements[sql] = statement
        return statement
    }

    /// Throws the classified error of a failed result (or of a missing one: libpq returns none
    /// when the connection is gone or memory ran out).
    private func check(_ result: OpaquePointer?) throws(PostgresError) {
        guard let result else {
            throw PostgresError(
                kind: .unavailable, sqlState: nil,
                message: "\(target): \(PostgresURL.oneLine(String(cString: PQerrorMessage(handle))))")
        }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return
        default:
            break
        }
        let sqlState = Self.field(result, portico_pg_diag_sqlstate)
        let primary =
            Self.field(result, portico_pg_diag_message_primary)
            ?? PostgresURL.oneLine(String(cString: PQresultErrorMessage(result)))
        guard let sqlState else {
            // No SQLSTATE: libpq's own failure, which is a lost connection when libpq says so.
            let kind: PostgresError.Kind = isBroken ? .unavailable : .other
            throw PostgresError(kind: kind, sqlState: nil, message: "\(target): \(primary)")
        }
        let kind = PostgresError.kind(sqlState: sqlState, detail: Self.field(result, portico_pg_diag_message_detail))
        throw PostgresError(kind: isBroken ? .unavailable : kind, sqlState: sqlState, message: primary)
    }

    private static func field(_ result: OpaquePointer, _ code: Int32) -> String? {
        PQresultErrorField(result, code).map { String(cString: $0) }
    }

    /// The reason in libpq's connection failure: `connection to server at "127.0.0.1", port 5
    /// failed: Connection refused` → `connection refused`, `FATAL:  password authentication
    /// failed for user "x"` → `password authentication failed for user "x"`.
    static func connectionFailureReason(_ message: String) -> String {
        var reason = PostgresURL.oneLine(message)
        if let failed = reason.range(of: "failed: ") { reason = String(reason[failed.upperBound...]) }
        for prefix in ["FATAL:", "ERROR:"] where reason.hasPrefix(prefix) {
            reason = String(reason.dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces)
        }
        if reason.contains("no password supplied") {
            return "the server asks for a password: put it in the URL, PGPASSWORD or ~/.pgpass"
        }
        guard let first = reason.first else { return "no reason given" }
        return first.lowercased() + reason.dropFirst()
    }

    private static func withCStrings<T>(
        _ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> T
    ) -> T {
        let duplicates = strings.map { strdup($0) }
        defer { for duplicate in duplicates { free(duplicate) } }
        var pointers = duplicates.map { UnsafePointer($0) }
        pointers.append(nil)
        return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
    }

    /// Copies each value with a terminating NUL: libpq reads text parameters as C strings (it
    /// takes lengths for binary ones only), which is why text with a NUL inside is refused first.
    private static func withParameterPointers<T>(
        _ values: [[UInt8]?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) throws -> T
    ) rethrows -> T {
        let copies: [UnsafeMutablePointer<CChar>?] = values.map { value in
            guard let value else { return nil }
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: value.count + 1)
            value.withUnsafeBytes { bytes in
                if let base = bytes.baseAddress {
                    UnsafeMutableRawPointer(copy).copyMemory(from: base, byteCount: value.count)
                }
            }
            copy[value.count] = 0
            return copy
        }
        defer { for copy in copies { copy?.deallocate() } }
        let pointers = copies.map { $0.map { UnsafePointer($0) } }
        return try pointers.withUnsafeBufferPointer { try body($0.baseAddress) }
    }
}

/// A statement prepared on one connection: its name on the server, and its result's column names,
/// read from its first result that has rows and kept, so that rows resolve names without asking
/// libpq (a prepared statement's columns do not change).
final class PreparedStatement {
    let name: String
    private var columns: SQLColumns?

    init(name: String) {
        self.name = name
    }

    /// The column names of `result`, one of this statement's results.
    func columns(of result: OpaquePointer, sql: String) -> SQLColumns {
        if let columns { return columns }
        let names = (0..<PQnfields(result)).map { column in
            PQfname(result, column).map { String(cString: $0) } ?? ""
        }
        let made = SQLColumns(names: names, statement: sql)
        columns = made
        return made
    }
}
