import PorticoHTTP

/// The errors of the stream management endpoints (SSF 1.0 §8.1), as OAuth-style JSON bodies
/// with the status SSF names.
enum StreamError {
    /// 400: the request cannot be parsed or a value is not acceptable.
    static func invalid(_ description: String) -> OAuthError {
        OAuthError.invalidRequest(description)
    }

    /// 404: no stream with this id for this receiver (another receiver's stream included:
    /// whether it exists is not told).
    static func notFound(_ description: String = "There is no stream with this stream_id for this receiver.")
        -> OAuthError
    {
        OAuthError(code: "not_found", description: description, status: .notFound)
    }

    /// 409: the receiver has a stream already (one per client).
    static func conflict() -> OAuthError {
        OAuthError(
            code: "conflict", description: "This receiver has a stream already; update or delete it.",
            status: HTTPStatus(rawValue: 409))
    }

    /// 400 for a subject that is not one of this receiver's people.
    static func invalidSubject(_ description: String) -> OAuthError {
        OAuthError(code: "invalid_subject", description: description, status: .badRequest)
    }
}
