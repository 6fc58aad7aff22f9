import Foundation
import PorticoStore
import PorticoStoreConformance
import PorticoStoreSQLite
import PorticoTesting
import Testing

private struct Abort: Error {}

@Suite struct TransactionTests {
    @Test func aThrowingBodyRollsEverythingBack() throws {
        try withStore { store throws in
            let user = StoreFixtures.user()
            #expect(throws: Abort.self) {
                try store.transaction { transaction in
                    try transaction.insert(user)
                    try transaction.insert(StoreFixtures.client())
                    throw Abort()
                }
            }
            #expect(try store.user(id: user.id) == nil)
            #expect(try store.clients().isEmpty)
        }
    }

    @Test func aFailedStatementCanBeCaughtInsideATransaction() throws {
        try withStore { store throws in
            let first = StoreFixtures.user("a@example.com")
            let second = StoreFixtures.user("b@example.com")
            try store.transaction { transaction in
                try transaction.insert(first)
                do {
                    try transaction.insert(StoreFixtures.user("A@example.com"))
                } catch StoreError.duplicate {
                    try transaction.insert(second)
                }
            }
            #expect(try store.users().count == 2)
        }
    }

    @Test func readTransactionsRefuseWrites() throws {
        try withStore { store throws in
            #expect(throws: StoreError.self) {
                try store.read { try $0.insert(StoreFixtures.user()) }
            }
            #expect(try store.users().isEmpty)
        }
    }

    @Test func nestedTransactionsAreRefusedNotDeadlocked() throws {
        for strategy in [SQLiteConnectionStrategy.perThread, .pool(maximumConnections: 4)] {
            try withStore(strategy: strategy) { store throws in
                #expect(throws: StoreError.self) {
                    try store.transaction { _ in try store.transaction { _ in } }
                }
                try store.insert(StoreFixtures.user())
                #expect(try store.users().count == 1)
            }
        }
    }

    @Test func anEscapedTransactionCannotBeUsed() throws {
        try withStore { store throws in
            let escaped = try store.transaction { $0 }
            #expect(throws: StoreError.self) { try escaped.insert(StoreFixtures.user()) }
        }
    }

    @Test func aClosedStoreSaysSo() throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStore(path: directory.databasePath())
        store.close()
        #expect(throws: StoreError.closed) { try store.users() }
    }

    @Test func inMemoryStoreWorksAcrossThreads() throws {
        let store = try openStore(url: "sqlite::memory:")
        defer { store.close() }
        let finished = runOnThreads(4) { index in
            try? store.insert(StoreFixtures.user("m\(index)@example.com"))
        }
        #expect(finished)
        #expect(try store.users().count == 4)
    }
}
