/// An error the authorization endpoint returns to the client by redirect (RFC 6749 §4.1.2.1,
/// OpenID Connect Core §3.1.2.6): only once the client and its redirect URI are known good.
struct AuthorizationError: Error, Sendable, Equatable {
    /// The registered error code.
    let code: String
    /// Words for the client's developer; never secrets.
    let description: String

    static func invalidRequest(_ description: String) -> AuthorizationError {
        AuthorizationError(code: "invalid_request", description: description)
    }

    static func unsupportedResponseType(_ description: String) -> AuthorizationError {
        AuthorizationError(code: "unsupported_response_type", description: description)
    }

    static func invalidScope(_ description: String) -> AuthorizationError {
        AuthorizationError(code: "invalid_scope", description: description)
    }

    static func unauthorizedClient(_ description: String) -> AuthorizationError {
        AuthorizationError(code: "unauthorized_client", description: description)
    }

    /// The person pressed Cancel.
    static let accessDenied = AuthorizationError(
        code: "access_denied", description: "The user did not allow the request.")

    /// `prompt=none`, but nobody (or nobody recent enough) is signed in.
    static let loginRequired = AuthorizationError(
        code: "login_required", description: "The user must sign in, and prompt=none forbids showing a page.")

    /// `prompt=none`, but the person has not granted every scope asked for.
    static let consentRequired = AuthorizationError(
        code: "consent_required", description: "The user must consent, and prompt=none forbids showing a page.")

    static let requestNotSupported = AuthorizationError(
        code: "request_not_supported", description: "Request objects (the request parameter) are not supported.")

    static let requestURINotSupported = AuthorizationError(
        code: "request_uri_not_supported", description: "The request_uri parameter is not supported.")
}
