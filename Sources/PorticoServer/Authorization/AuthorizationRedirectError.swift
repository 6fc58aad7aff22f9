/// An error the authorization endpoint returns to the client by redirect (RFC 6749 §4.1.2.1,
/// OpenID Connect Core §3.1.2.6): only once the client and its redirect URI are known good.
///
/// Named apart from PorticoKit's `AuthorizationError`, which is how an app sees such errors.
struct AuthorizationRedirectError: Error, Sendable, Equatable {
    /// The registered error code.
    let code: String
    /// Words for the client's developer; never secrets.
    let description: String

    /// A parameter is missing, repeated, malformed or unsupported.
    static func invalidRequest(_ description: String) -> AuthorizationRedirectError {
        AuthorizationRedirectError(code: "invalid_request", description: description)
    }

    /// A `response_type` other than `code`.
    static func unsupportedResponseType(_ description: String) -> AuthorizationRedirectError {
        AuthorizationRedirectError(code: "unsupported_response_type", description: description)
    }

    /// An unknown scope, one the client may not ask for, or none at all.
    static func invalidScope(_ description: String) -> AuthorizationRedirectError {
        AuthorizationRedirectError(code: "invalid_scope", description: description)
    }

    /// The client is not registered for the authorization code grant.
    static func unauthorizedClient(_ description: String) -> AuthorizationRedirectError {
        AuthorizationRedirectError(code: "unauthorized_client", description: description)
    }

    /// The person pressed Cancel.
    static let accessDenied = AuthorizationRedirectError(
        code: "access_denied", description: "The user did not allow the request.")

    /// `prompt=none`, but nobody (or nobody recent enough) is signed in.
    static let loginRequired = AuthorizationRedirectError(
        code: "login_required", description: "The user must sign in, and prompt=none forbids showing a page.")

    /// `prompt=none`, but the person has not granted every scope asked for.
    /// `prompt=none`, but a page must be shown: a public app's remembered consent is only
    /// replayed after a click (RFC 8252 §8.6), which `prompt=none` forbids.
    static let interactionRequired = AuthorizationRedirectError(
        code: "interaction_required", description: "the person must confirm before this app signs in")

    static let consentRequired = AuthorizationRedirectError(
        code: "consent_required", description: "The user must consent, and prompt=none forbids showing a page.")

    /// A request object (`request`) was sent; Portico does not take them.
    static let requestNotSupported = AuthorizationRedirectError(
        code: "request_not_supported", description: "Request objects (the request parameter) are not supported.")

    /// A `request_uri` was sent; Portico does not take them.
    static let requestURINotSupported = AuthorizationRedirectError(
        code: "request_uri_not_supported", description: "The request_uri parameter is not supported.")
}
