/// Why an `HTTPServer` could not start.
public enum HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `host` is not an IP address literal (or `localhost`).
    case invalidHost(String)
    /// `start()` was called on a server that is running or was shut down.
    case alreadyStarted
    /// libmicrohttpd could not listen (port in use, no permission); carries the system's reason.
    case cannotListen(host: String, port: UInt16, reason: String)
    /// Another socket already listens on the port (`EADDRINUSE`): told apart from the other
    /// reasons so that the command line can name the fix (another port) rather than the errno.
    case addressInUse(host: String, port: UInt16)

    /// One line for the command line's error output.
    public var description: String {
        switch self {
        case .invalidHost(let host): "invalid listen address: \(host)"
        case .alreadyStarted: "the server was already started"
        case .cannotListen(let host, let port, let reason): "cannot listen on \(host):\(port): \(reason)"
        case .addressInUse(let host, let port): "port \(port) on \(host) is already in use"
        }
    }
}
