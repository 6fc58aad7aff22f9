import PorticoHTTP

/// A failure the host backend answers its app with: a status and an OAuth-style JSON error.
public struct HostBackendError: Error, Sendable, CustomStringConvertible {
    /// The HTTP status to answer with.
    public let status: HTTPStatus
    /// The `error` member (`invalid_request`, `link_conflict`, `platform_unavailable`, …).
    public let error: String
    /// The `error_description` member, one readable line.
    public let message: String
    /// The provider's `DPoP-Nonce`, handed back to the app with a `use_dpop_nonce` error so that
    /// it signs a new proof (only the app holds the key).
    public var dpopNonce: String?

    /// An error of `status` with `error` and `message`.
    public init(_ status: HTTPStatus, _ error: String, _ message: String) {
        self.status = status
        self.error = error
        self.message = message
    }

    /// The JSON response.
    var response: Response {
        let body = ["error": error, "error_description": message]
        var response = (try? Response.json(body, status: status)) ?? Response.text(message, status: status)
        if let dpopNonce { response.headers.add("DPoP-Nonce", value: dpopNonce) }
        return response
    }

    /// The error and its description.
    public var description: String { "\(error): \(message)" }
}
