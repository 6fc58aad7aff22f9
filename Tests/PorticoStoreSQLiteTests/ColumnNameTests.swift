import Foundation
import PorticoStore
import PorticoStoreConformance
import PorticoStoreSQL
import PorticoTesting
import Testing

@testable import PorticoStoreSQLite

/// Decoders read columns by name; a name the statement does not return (a decoder that drifted
/// from its SELECT) must fail loudly, as a thrown error that names the column and the statement,
/// never as a crash or a silent nil or a neighbour's value.
@Suite struct ColumnNameTests {
    @Test func aNameTheStatementDoesNotReturnThrowsNamingTheColumnAndTheStatement() throws {
        try withStore { store throws in
            try store.insert(StoreFixtures.user())
            try store.read { transaction in
                let sqlite = try #require(transaction as? SQLiteTransaction)
                let error = caught(StoreError.self) {
                    _ = try sqlite.first("SELECT id, email FROM users", []) { try $0.text("postal_code") }
                }
                guard case .misuse(let message) = error else {
                    Issue.record("a missing column was not refused: \(String(describing: error))")
                    return
                }
                #expect(message.contains("'postal_code'"))
                #expect(message.contains("SELECT id, email FROM users"))
                // The statement and its cached names still serve a decoder that names them.
                #expect(try sqlite.first("SELECT id, email FROM users", []) { try $0.text("email") } != nil)
            }
        }
    }

    @Test func aNameTheStatementReturnsTwiceIsRefusedRatherThanGuessed() throws {
        try withStore { store throws in
            let user = StoreFixtures.user()
            try store.insert(user)
            try store.read { transaction in
                let sqlite = try #require(transaction as? SQLiteTransaction)
                let sql = "SELECT u.id, v.id FROM users u JOIN users v ON v.id = u.id"
                let error = caught(StoreError.self) { _ = try sqlite.first(sql, []) { try $0.text("id") } }
                guard case .misuse(let message) = error else {
                    Issue.record("an ambiguous column was not refused: \(String(describing: error))")
                    return
                }
                #expect(message.contains("'id'"))
            }
        }
    }

    @Test func namesReadInAnyOrderGiveTheirOwnColumns() throws {
        let columns = SQLColumns(names: ["a", "b", "c", "d"], statement: "SELECT a, b, c, d")
        #expect(try columns.index(of: "a") == 0)
        #expect(try columns.index(of: "b") == 1)
        #expect(try columns.index(of: "d") == 3)
        #expect(try columns.index(of: "a") == 0)
        #expect(try columns.index(of: "c") == 2)
        #expect(try columns.index(of: "c") == 2)
        #expect(throws: StoreError.self) { try columns.index(of: "e") }
        #expect(try columns.index(of: "d") == 3)
    }
}

/// The error `body` throws, if it is an `E`.
private func caught<E: Error>(_ type: E.Type, _ body: () throws -> Void) -> E? {
    do {
        try body()
        return nil
    } catch let error as E {
        return error
    } catch {
        return nil
    }
}
