import PorticoHTTP

/// A failure the host backend answers its app with: a status and an OAuth-style JSON error.
public struct HostBackendError: Error, Sendable, CustomStringConvertible {
    /// The HTTP status to answer with.
    public let status: HTTPStatus
    /// The `error` member (`invalid_request`, `link_conflict`, `platform_unavailable`, …).
    public let error: String
    /// The `error_description` member, one readable line.
    public let message: String

    /// An error of `status` with `error` and `message`.
    public init(_ status: HTTPStatus, _ error: String, _ message: String) {
        self.status = status
        self.error = error
        self.message = message
    }

    /// The JSON response.
    var response: Response {
        let body = ["error": error, "error_description": message]
        return (try? Response.json(body, status: status)) ?? Response.text(message, status: status)
    }

    /// The error and its description.
    public var description: String { "\(error): \(message)" }
}
