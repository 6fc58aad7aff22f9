/// Why a sealed key could not be opened or made.
public enum KeyEncryptionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text is not a sealed value of a known form.
    case malformed
    /// The key or the context differs from the one the value was sealed with, or it was altered.
    case authenticationFailed
    /// OpenSSL refused an operation (out of memory).
    case cryptoFailure

    /// One line for logs and the command line.
    public var description: String {
        switch self {
        case .malformed: "not an encrypted key"
        case .authenticationFailed: "the key-encryption key does not open this key (wrong key file?)"
        case .cryptoFailure: "OpenSSL could not run AES-256-GCM"
        }
    }
}
