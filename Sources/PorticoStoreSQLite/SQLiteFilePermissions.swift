import Foundation
import PorticoStore
import PorticoStoreSQL

/// Keeps an SQLite database its owner's only: folder 0700 and files 0600 whatever the umask, and
/// a refusal to open one that other local users can read.
///
/// Why: the database holds sessions, grants and the (sealed) signing keys. SQLite creates its
/// `-wal` and `-shm` files with the mode of the database file, so making the database file 0600
/// before SQLite first opens it is what keeps all three private.
enum SQLiteFilePermissions {
    /// Makes the folder (0700) and the database file (0600) when missing, and refuses a database
    /// (or its `-wal` / `-shm`) that is group- or world-readable, naming the `chmod` to run.
    static func prepare(path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
            do {
                try FileManager.default.createDirectory(
                    atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw StoreError.io("cannot create directory \(folder): \(error.localizedDescription)")
            }
            // Exactly 0700 whatever the umask made of it.
            _ = chmod(folder, 0o700)
        }
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            _ = fchmod(descriptor, 0o600)
            close(descriptor)
        } else if errno != EEXIST {
            throw StoreError.io("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        for file in [path, path + "-wal", path + "-shm"] {
            var status = stat()
            guard stat(file, &status) == 0 else { continue }
            let mode = Int(status.st_mode) & 0o777
            if mode & 0o077 != 0 {
                throw StoreError.readableByOthers(
                    "the database \(file) is open to other users (mode 0\(String(mode, radix: 8))); "
                        + "run: chmod 600 \(path)*")
            }
        }
    }
}
