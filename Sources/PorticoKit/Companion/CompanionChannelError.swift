/// Why a message could not be sent or received on the companion's socket.
public enum CompanionChannelError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing listens at the socket's path (no agent running), or the path is unusable.
    case unreachable(String)
    /// The other side closed the connection before a whole message came.
    case closed
    /// No whole message came in time.
    case timedOut
    /// The message is longer than the protocol allows.
    case tooLarge
    /// The peer is another user: refused.
    case foreignPeer
    /// A system call failed (its description).
    case system(String)

    /// One line.
    public var description: String {
        switch self {
        case .unreachable(let reason): "no agent answers: \(reason)"
        case .closed: "the other side closed the connection"
        case .timedOut: "no answer in time"
        case .tooLarge: "the message is too large"
        case .foreignPeer: "the socket's other side belongs to another user"
        case .system(let reason): reason
        }
    }
}
