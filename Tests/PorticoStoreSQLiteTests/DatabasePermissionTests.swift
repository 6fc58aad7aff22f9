import Foundation
import PorticoStore
import PorticoStoreConformance
import PorticoStoreSQLite
import PorticoTesting
import Testing

/// The database is its owner's only: the folder 0700 and the database with its `-wal` and
/// `-shm` 0600 (under the test process's usual 022 umask, which alone would give 0755/0644),
/// and a database other users can read is refused with the `chmod` that fixes it.
@Suite struct DatabasePermissionTests {
    private func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require(attributes[.posixPermissions] as? Int) & 0o777
    }

    @Test func aNewDatabaseAndItsLogsAreOwnerOnly() throws {
        let directory = try TemporaryDirectory()
        let path = directory.databasePath()
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        try store.insert(StoreFixtures.user())
        #expect(try mode((path as NSString).deletingLastPathComponent) == 0o700)
        for file in [path, path + "-wal", path + "-shm"] {
            #expect(FileManager.default.fileExists(atPath: file), "\(file)")
            #expect(try mode(file) == 0o600, "\(file)")
        }
    }

    @Test(arguments: [0o644, 0o640, 0o604])
    func aDatabaseOthersCanReadIsRefusedWithTheChmod(fileMode: Int) throws {
        let directory = try TemporaryDirectory()
        let path = directory.databasePath()
        try SQLiteStore(path: path).close()
        #expect(chmod(path, mode_t(fileMode)) == 0)
        do {
            _ = try SQLiteStore(path: path)
            Issue.record("a database of mode \(String(fileMode, radix: 8)) was opened")
        } catch let error as StoreError {
            #expect(error == .readableByOthers(error.description))
            #expect(error.description.contains("run: chmod 600 \(path)*"))
            #expect(!error.description.contains("\n"))
        }
        #expect(chmod(path, 0o600) == 0)
        try SQLiteStore(path: path).close()
    }

    @Test func aWriteAheadLogOthersCanReadIsRefusedToo() throws {
        let directory = try TemporaryDirectory()
        let path = directory.databasePath()
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        try store.insert(StoreFixtures.user())
        #expect(chmod(path + "-wal", 0o644) == 0)
        #expect(throws: StoreError.self) { try SQLiteStore(path: path) }
    }
}
