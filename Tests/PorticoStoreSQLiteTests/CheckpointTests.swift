import Foundation
import PorticoStore
import PorticoStoreConformance
import PorticoTesting
import Testing

@testable import PorticoStoreSQLite

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
            try store.insert(StoreFixtures.user("person-\(index)@example.com", name: "Person \(index)"))
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
            try store.insert(StoreFixtures.user("round-\(round)@example.com"))
            store.close()
            store.close()  // idempotent
        }
        let reopened = try SQLiteStore(path: path)
        defer { reopened.close() }
        #expect(try reopened.read { try $0.users(limit: 10) }.count == 3)
    }

    /// `close()` closes the checkpointer's own connection too, while the store object still
    /// exists (as in `portico serve`, which closes it and exits): SQLite removes the log when the
    /// last connection to the file closes, so a cleanly stopped server leaves no `-wal` file.
    /// The checkpointer once outlived the store in a reference cycle with its thread, its
    /// connection open until the process ended (found by AddressSanitizer's leak check).
    @Test func closingClosesEveryConnectionAndRemovesTheLog() throws {
        let directory = try TemporaryDirectory()
        let path = directory.databasePath()
        let store = try SQLiteStore(path: path, backgroundCheckpoints: true)
        try store.insert(StoreFixtures.user("person@example.com"))
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        store.close()
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "a connection to the file is still open")
        withExtendedLifetime(store) {}
    }

    /// Under a steady stream of commits a passive checkpoint never finds the log fully copied,
    /// so SQLite never starts it over by itself: the checkpointer must, or the WAL file grows
    /// for as long as the load lasts (it reached 420 MB in seven seconds of token rotations).
    @Test func aLongLogIsStartedOverAndTheWALFileStaysSmall() throws {
        let directory = try TemporaryDirectory()
        let path = directory.databasePath()
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let writers = FairLock()
        let checkpointer = try SQLiteCheckpointer(
            path: path, busyTimeoutMilliseconds: 5000, writers: writers, lockTimeout: 5, interval: 0.01,
            threshold: 8, restartThreshold: 32)
        defer { checkpointer.stop() }
        let connection = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 5000)
        try checkpointer.attach(connection)
        try connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB)")
        let rows = 3000
        var restartsSeen = checkpointer.restarts
        for row in 0..<rows {
            try writers.withLock(timeout: 5) {
                try connection.execute("INSERT INTO t (body) VALUES (randomblob(3000))")
            }
            // Every 500 rows, let the checkpointer's thread have its turn (bounded): 3,000 inserts
            // take well under 0.1 s, which a loaded machine may not schedule that thread in at all,
            // and the test is about what a restart does, not about the scheduler.
            if row % 500 == 499 {
                let deadline = Date(timeIntervalSinceNow: 10)
                while checkpointer.restarts == restartsSeen && Date() < deadline { usleep(1000) }
                restartsSeen = checkpointer.restarts
            }
        }
        #expect(checkpointer.restarts > 0)
        // 3,000 rows of 3 KB, a page each (12 MB), went through the log. Without restarts the
        // WAL file holds all of them; restarted past 32 pages, it holds what was written while
        // a checkpoint ran and at most the 500 rows between two turns (3 to 5.5 MB here).
        let walSize = fileSize(path + "-wal")
        // Without restarts the log holds every one of the 3,000 pages (4 KiB and a frame header
        // each): anything below that many pages means the log was started over.
        #expect(walSize < rows * 4096, "WAL file: \(walSize) bytes")
        var count = 0
        try connection.run("SELECT count(*) FROM t", []) { count = Int($0.integer(at: 0)) }
        #expect(count == rows)
    }
}
