import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A ``TokenStore`` of one JSON file per provider × client in a directory, readable by the
/// owner only: the Linux counterpart of the Keychain.
///
/// Files are created `0600` in a `0700` directory and replaced atomically (written to a
/// temporary file, synced, renamed), so a crash never leaves half a grant. A file that group or
/// others may read is refused with ``AuthorizationError/Code/storage`` rather than trusted or
/// silently fixed: its tokens may already have leaked, and the person should know.
public final class FileTokenStore: TokenStore {
    /// The directory holding the files.
    public let directory: URL
    private let dpopKeyCache = LockedState<DPoPKey?>(nil)

    /// A store in `directory`, created (`0700`) on first write when missing.
    public init(directory: URL) {
        self.directory = directory.standardizedFileURL
    }

    /// The file holding the grant for `key`.
    public func fileURL(for key: TokenStoreKey) -> URL {
        directory.appendingPathComponent(key.storageName + ".json")
    }

    /// The file holding the installation's DPoP key: PKCS#8 PEM, `0600`, beside the grants.
    public var dpopKeyFileURL: URL {
        directory.appendingPathComponent("dpop-key.pem")
    }

    /// The DPoP key from ``dpopKeyFileURL``, made and written there (`0600`) on first use, so
    /// tokens bound on one run can be used on the next. Held in memory once read.
    public func dpopKey() throws -> DPoPKey {
        try dpopKeyCache.withLock { (cached) throws -> DPoPKey in
            if let cached { return cached }
            var key: DPoPKey
            if let pem = try contents(of: dpopKeyFileURL.path, what: "DPoP key") {
                key = try DPoPKey.load(pem: String(decoding: pem, as: UTF8.self))
            } else {
                key = try DPoPKey.generate()
                guard let pem = key.pemRepresentation else {
                    throw AuthorizationError(.storage, "the DPoP key cannot be written to a file")
                }
                try createDirectory()
                let path = dpopKeyFileURL.path
                // Two processes starting at once: the first key written is the one both keep.
                if try !replace(path, with: Array(pem.utf8), temporaryName: "dpop-key", keepingExisting: true),
                    let pem = try contents(of: path, what: "DPoP key")
                {
                    key = try DPoPKey.load(pem: String(decoding: pem, as: UTF8.self))
                }
            }
            cached = key
            return key
        }
    }

    /// Reads the grant; nil when there is no file.
    public func grant(for key: TokenStoreKey) throws -> StoredGrant? {
        let path = fileURL(for: key).path
        guard let data = try contents(of: path, what: "token") else { return nil }
        do {
            return try JSONDecoder().decode(StoredGrant.self, from: data)
        } catch {
            throw AuthorizationError(.storage, "the token file \(path) is not a stored grant", underlyingError: error)
        }
    }

    /// The bytes of the owner-only file at `path` (a `what` file); nil when there is none.
    private func contents(of path: String, what: String) throws -> Data? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw storageError("cannot open the \(what) file \(path)")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw storageError("cannot inspect the \(what) file \(path)") }
        guard status.st_mode & 0o077 == 0 else {
            throw AuthorizationError(
                .storage, "the \(what) file \(path) may be read by other users; remove it and sign in again")
        }
        guard status.st_uid == geteuid() else {
            throw AuthorizationError(.storage, "the \(what) file \(path) belongs to another user")
        }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw storageError("cannot read the \(what) file \(path)")
            }
            if count == 0 { break }
            data.append(contentsOf: buffer[0..<count])
            guard data.count <= 1024 * 1024 else { throw AuthorizationError(.storage, "the \(what) file is too large") }
        }
        return data
    }

    /// Writes the grant to a temporary `0600` file and renames it over the old one.
    public func save(_ grant: StoredGrant, for key: TokenStoreKey) throws {
        try createDirectory()
        let data: Data
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            data = try encoder.encode(grant)
        } catch {
            throw AuthorizationError(.storage, "cannot encode the grant", underlyingError: error)
        }
        try replace(fileURL(for: key).path, with: [UInt8](data), temporaryName: key.storageName)
    }

    /// Writes `bytes` to a temporary `0600` file, syncs it and renames it over `target`; with
    /// `keepingExisting`, links it there instead and returns false when `target` already exists
    /// (another process wrote it first).
    @discardableResult
    private func replace(
        _ target: String, with bytes: [UInt8], temporaryName: String, keepingExisting: Bool = false
    ) throws -> Bool {
        let temporary = directory.appendingPathComponent(".\(temporaryName).\(UUID().uuidString).tmp").path
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw storageError("cannot create \(temporary)") }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                close(descriptor)
                unlink(temporary)
                throw storageError("cannot write \(temporary)")
            }
            written += count
        }
        // The umask cannot widen 0600, but a pre-set ACL or odd umask could narrow oddly: be exact.
        fchmod(descriptor, 0o600)
        let synced = fsync(descriptor) == 0
        close(descriptor)
        if synced && keepingExisting {
            let linked = link(temporary, target) == 0
            let failure = errno
            unlink(temporary)
            if linked || failure == EEXIST { return linked }
            errno = failure
            throw storageError("cannot create \(target)")
        }
        guard synced, rename(temporary, target) == 0 else {
            unlink(temporary)
            throw storageError("cannot replace the token file \(target)")
        }
        return true
    }

    /// Deletes the grant's file.
    public func removeGrant(for key: TokenStoreKey) throws {
        let path = fileURL(for: key).path
        guard unlink(path) == 0 || errno == ENOENT else { throw storageError("cannot remove \(path)") }
    }

    /// Runs `refresh` holding an exclusive `flock` on the grant's lock file in the directory,
    /// so that two processes of one app refresh once: the second waits, then finds the fresh
    /// grant the first stored. The wait polls, so the refresh deadline and cancellation end it.
    public func whileRefreshing<T: Sendable>(
        _ key: TokenStoreKey, _ refresh: @Sendable () async throws -> T
    ) async throws -> T {
        try createDirectory()
        let path = directory.appendingPathComponent(".\(key.storageName).lock").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw storageError("cannot open the lock file \(path)") }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else { throw storageError("cannot lock \(path)") }
            do { try await Task.sleep(for: .milliseconds(20)) } catch { throw AuthorizationError.taskCancelled }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try await refresh()
    }

    /// The directory: two stores on one directory are one storage.
    public var coordinationKey: String { "file:" + directory.path }

    private func createDirectory() throws {
        let path = directory.path
        var status = stat()
        if stat(path, &status) == 0 { return }
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw AuthorizationError(.storage, "cannot create the token directory \(path)", underlyingError: error)
        }
    }

    private func storageError(_ message: String) -> AuthorizationError {
        AuthorizationError(.storage, "\(message): \(String(cString: strerror(errno)))")
    }
}
