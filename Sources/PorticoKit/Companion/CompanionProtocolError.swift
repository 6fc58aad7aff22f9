/// Why a message on the companion's socket was refused; its ``code`` is the `error` of the
/// answer.
public enum CompanionProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Longer than ``CompanionProtocol/maximumMessageBytes``.
    case tooLarge
    /// A version other than 1.
    case unsupportedVersion(Int)
    /// Not a request: the reason.
    case invalid(String)

    /// The protocol's `error` value.
    public var code: String {
        switch self {
        case .tooLarge: "too_large"
        case .unsupportedVersion: "unsupported_version"
        case .invalid: "invalid_request"
        }
    }

    /// One line.
    public var description: String {
        switch self {
        case .tooLarge: "the message is longer than \(CompanionProtocol.maximumMessageBytes) bytes"
        case .unsupportedVersion(let version): "protocol version \(version) is not supported (only 1)"
        case .invalid(let reason): reason
        }
    }
}
