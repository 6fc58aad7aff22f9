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

    /// A `request_uri` that is not one of Portico's pushed requests: Portico fetches none
    /// (RFC 9101 §5.2 by reference is not supported; push it to `/oauth/par` instead).
    static let requestURINotSupported = AuthorizationRedirectError(
        code: "request_uri_not_supported",
        description: "Only request_uri values from this server's pushed authorization request endpoint are accepted.")

    /// A signed request object that did not verify (RFC 9101 §7).
    static func invalidRequestObject(_ description: String) -> AuthorizationRedirectError {
        AuthorizationRedirectError(code: "invalid_request_object", description: description)
    }
}
