/// An error a handler (or the request decoders) throws to answer with a specific status.
///
/// The server turns it into a `text/plain` response with `message` as the body, so the message
/// must be safe to show to a client; any other error becomes a generic 500.
public struct HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The status to answer with.
    public let status: HTTPStatus
    /// A short client-facing explanation; never internals.
    public let message: String

    /// Creates an error that answers `status` with `message` as its body.
    public init(_ status: HTTPStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    /// A 400 for malformed input: bad percent-encoding, bad JSON, missing fields.
    public static func badRequest(_ message: String) -> HTTPError {
        HTTPError(.badRequest, message)
    }

    /// The status and message, for logs.
    public var description: String { "\(status.rawValue) \(message)" }
}
