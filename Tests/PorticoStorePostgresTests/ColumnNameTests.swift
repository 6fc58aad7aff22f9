import Foundation
import PorticoStore
import PorticoStoreConformance
import PorticoTesting
import Testing

@testable import PorticoStorePostgres

/// Decoders read columns by name; a name the statement does not return (a decoder that drifted
/// from its SELECT) must fail loudly, as a thrown error that names the column and the statement,
/// never as a crash or a silent nil or a neighbour's value.
@Suite(TestServer.required) struct ColumnNameTests {
    @Test func aNameTheStatementDoesNotReturnThrowsNamingTheColumnAndTheStatement() throws {
        let database = try TemporaryDatabase()
        let store = try database.store(poolSize: 1)
        defer { store.close() }
        try store.insert(StoreFixtures.user())
        try store.read { transaction in
            let postgres = try #require(transaction as? PostgresTransaction)
            // Twice: the first run reads the names from its result, the second from the statement.
            for _ in 0..<2 {
                let error = caught(StoreError.self) {
                    _ = try postgres.first("SELECT id, email FROM users", []) { try $0.text("postal_code") }
                }
                guard case .misuse(let message) = error else {
                    Issue.record("a missing column was not refused: \(String(describing: error))")
                    return
                }
                #expect(message.contains("'postal_code'"))
                #expect(message.contains("SELECT id, email FROM users"))
            }
            #expect(try postgres.first("SELECT id, email FROM users", []) { try $0.text("email") } != nil)
        }
    }

    @Test func aNameTheStatementReturnsTwiceIsRefusedRatherThanGuessed() throws {
        let database = try TemporaryDatabase()
        let store = try database.store(poolSize: 1)
        defer { store.close() }
        try store.insert(StoreFixtures.user())
        try store.read { transaction in
            let postgres = try #require(transaction as? PostgresTransaction)
            let sql = "SELECT u.id, v.id FROM users u JOIN users v ON v.id = u.id"
            let error = caught(StoreError.self) { _ = try postgres.first(sql, []) { try $0.text("id") } }
            guard case .misuse(let message) = error else {
                Issue.record("an ambiguous column was not refused: \(String(describing: error))")
                return
            }
            #expect(message.contains("'id'"))
        }
    }
}
