import Foundation
import Testing

@testable import PorticoStore

/// Background WAL checkpoints (the server's setting): the log still reaches the database file,
/// while commits leave the copying to the store's own thread.
@Suite struct CheckpointTests {
    private func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    @Test func theLogReachesTheDatabaseFileWithoutAutomaticCheckpoints() throws {
        let directory = try TemporaryDirectory()
        let path = directory.databasePath()
        let store = try SQLiteStore(path: path, backgroundCheckpoints: true)
        let before = fileSize(path)
        for index in 0..<2500 {
            try store.insert(Fixtures.user("person-\(index)@example.com", name: "Person \(index)"))
        }
        // The commits pushed the log past the threshold; the checkpointer copies it within a
        // moment, so the database file grows although no commit ran a checkpoint.
        var grown = fileSize(path) > before
        for _ in 0..<100 where !grown {
            Thread.sleep(forTimeInterval: 0.05)
            grown = fileSize(path) > before
        }
        #expect(grown, "the database file was never written: no checkpoint ran")
        store.close()

        let reopened = try SQLiteStore(path: path)
        defer { reopened.close() }
        #expect(try reopened.read { try $0.users(limit: 5000) }.count == 2500)
        #expect(try reopened.integrityCheck() == ["ok"])
    }

    @Test func closingStopsTheThreadAndKeepsEverything() throws {
        let directory = try TemporaryDirectory()
        let path = directory.databasePath()
        for round in 0..<3 {
            let store = try SQLiteStore(path: path, backgroundCheckpoints: true)
            try store.insert(Fixtures.user("round-\(round)@example.com"))
            store.close()
            store.close()  // idempotent
        }
        let reopened = try SQLiteStore(path: path)
        defer { reopened.close() }
        #expect(try reopened.read { try $0.users(limit: 10) }.count == 3)
    }
}
