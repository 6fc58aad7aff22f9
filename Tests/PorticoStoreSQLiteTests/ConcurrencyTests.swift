import Foundation
import PorticoStore
import PorticoStoreConformance
import PorticoStoreSQLite
import PorticoTesting
import Testing

@Suite struct ConcurrencyTests {
    static let strategies: [SQLiteConnectionStrategy] = [.perThread, .pool(maximumConnections: 3)]

    /// 8 threads × 1,000 write transactions each: every row arrives, and nothing fails.
    @Test(arguments: strategies)
    func concurrentWritersLoseNothing(strategy: SQLiteConnectionStrategy) throws {
        try withStore(strategy: strategy) { store throws in
            let (user, client) = try StoreFixtures.userAndClient(in: store)
            let failures = LockedList<String>()
            let writers = 8
            let operations = 1000
            let finished = runOnThreads(writers, timeout: 300) { writer in
                for index in 0..<operations {
                    do {
                        if index.isMultiple(of: 2) {
                            try store.insert(
                                BrowserSession(
                                    token: "w\(writer)-\(index)", userID: user.id, expiresAt: referenceTime))
                        } else {
                            try store.transaction { transaction in
                                try transaction.insert(
                                    StoreFixtures.code("w\(writer)-\(index)", user: user, client: client))
                                try transaction.append(
                                    AuditEvent(actor: "writer-\(writer)", action: "code.issue", subject: "\(index)"))
                            }
                        }
                    } catch {
                        failures.append("writer \(writer) op \(index): \(error)")
                    }
                }
            }
            #expect(finished)
            #expect(failures.all.isEmpty, "\(failures.all.prefix(5))")
            let total = writers * operations
            #expect(try store.sessions(userID: user.id).count == total / 2)
            #expect(try store.recentAuditEvents(limit: total).count == total / 2)
            let codes = try store.read { transaction in
                try (0..<writers).flatMap { writer in
                    try (0..<operations).filter { !$0.isMultiple(of: 2) }.compactMap {
                        try transaction.authorizationCode("w\(writer)-\($0)")
                    }
                }
            }
            #expect(codes.count == total / 2)
        }
    }

    /// Readers run alongside writers without errors and always see committed state.
    @Test func readersRunAlongsideWriters() throws {
        try withStore { store throws in
            let (user, _) = try StoreFixtures.userAndClient(in: store)
            let failures = LockedList<String>()
            let finished = runOnThreads(4, timeout: 300) { thread in
                for index in 0..<300 {
                    do {
                        if thread < 2 {
                            try store.insert(
                                BrowserSession(token: "t\(thread)-\(index)", userID: user.id, expiresAt: referenceTime))
                        } else {
                            // Two reads in one snapshot agree with each other.
                            let (first, second) = try store.read { transaction in
                                (
                                    try transaction.sessions(userID: user.id).count,
                                    try transaction.sessions(userID: user.id).count
                                )
                            }
                            if first != second { failures.append("snapshot moved: \(first) vs \(second)") }
                        }
                    } catch {
                        failures.append("\(error)")
                    }
                }
            }
            #expect(finished)
            #expect(failures.all.isEmpty, "\(failures.all.prefix(5))")
            #expect(try store.sessions(userID: user.id).count == 600)
        }
    }
}
