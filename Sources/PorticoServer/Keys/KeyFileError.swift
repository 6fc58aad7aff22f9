import Foundation

/// Why the key-encryption key file could not be used; each case is one line an operator can
/// act on (the command line prints it as it is).
public enum KeyFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file can be read by other local users, so it protects nothing.
    case readableByOthers(path: String, mode: Int)
    /// The database holds encrypted keys, but there is no key file to open them with.
    case missing(path: String)
    /// The file exists but could not be read or written (`errno`).
    case fileSystem(path: String, errno: Int32)
    /// The file does not hold a key (base64url of 32 bytes).
    case malformed(path: String)
    /// A database shared by several nodes needs the one key file they all use.
    case required(String)
    /// A signing key in the database was sealed with another key (or was altered).
    case wrongKey(path: String, keyID: String)
    /// The database could not be read or written while migrating the keys.
    case storage(String)

    /// One line for the command line and logs.
    public var description: String {
        switch self {
        case .readableByOthers(let path, let mode):
            "the key file \(path) is open to other users (mode 0\(String(mode, radix: 8))); run: chmod 600 \(path)"
        case .missing(let path):
            "the signing keys in the database are encrypted, but the key file \(path) does not exist; "
                + "pass the key file they were encrypted with (--key-file or PORTICO_KEY_FILE)"
        case .fileSystem(let path, let errno):
            "cannot use the key file \(path): \(String(cString: strerror(errno)))"
        case .malformed(let path):
            "the key file \(path) does not hold a key-encryption key (one line of base64url, 32 bytes)"
        case .required(let message):
            message
        case .wrongKey(let path, let keyID):
            "the key file \(path) does not open signing key \(keyID) in the database (another key file?)"
        case .storage(let message):
            "cannot encrypt the signing keys: \(message)"
        }
    }
}
