import Foundation
import PorticoCrypto

/// Reads and makes the key-encryption key file: one line of base64url (32 bytes), mode 0600.
///
/// Making it is atomic (written to a private temporary file, then hard-linked into place), so
/// two processes starting at once on a new database end up with one key between them, and no
/// reader ever sees a half-written file.
enum KeyFile {
    /// The key in `path`, or nil when there is no such file.
    static func read(path: String) throws(KeyFileError) -> KeyEncryptionKey? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw .fileSystem(path: path, errno: errno)
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .fileSystem(path: path, errno: errno) }
        let mode = Int(status.st_mode) & 0o777
        guard mode & 0o077 == 0 else { throw .readableByOthers(path: path, mode: mode) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while bytes.count <= 4096 {
            let count = Foundation.read(descriptor, &buffer, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw .fileSystem(path: path, errno: errno)
            }
            if count == 0 { break }
            bytes += buffer[0..<count]
        }
        guard let text = String(validating: bytes, as: UTF8.self), let key = KeyEncryptionKey(encoded: text) else {
            throw .malformed(path: path)
        }
        return key
    }

    /// Makes `path` with a new random key and returns the key in it; when another process made
    /// the file first, returns that one instead.
    static func create(path: String) throws(KeyFileError) -> KeyEncryptionKey {
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty {
            do {
                try FileManager.default.createDirectory(
                    atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw .fileSystem(path: path, errno: EACCES)
            }
        }
        let key = KeyEncryptionKey.generate()
        let temporary = path + ".tmp-" + SecureRandom.token(bits: 64)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .fileSystem(path: path, errno: errno) }
        defer { unlink(temporary) }
        let line = Array((key.encoded + "\n").utf8)
        // Whatever the umask, the file is the owner's only.
        let written = fchmod(descriptor, 0o600) == 0 && write(descriptor, line, line.count) == line.count
        let synced = written && fsync(descriptor) == 0
        let failure = errno
        close(descriptor)
        guard synced else { throw .fileSystem(path: path, errno: failure) }
        if link(temporary, path) != 0 {
            let failure = errno
            if failure == EEXIST, let existing = try read(path: path) { return existing }
            throw .fileSystem(path: path, errno: failure)
        }
        return key
    }
}
