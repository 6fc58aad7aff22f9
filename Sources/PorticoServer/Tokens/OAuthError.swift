import PorticoCrypto
import PorticoHTTP

/// An OAuth error as RFC 6749 §5.2 (token, revoke, introspect) and RFC 6750 §3 (resource
/// endpoints) define it: a registered code, words for the developer, and the HTTP status.
///
/// Endpoints throw these; ``response()`` renders the JSON body with `Cache-Control: no-store`,
/// so no endpoint writes error JSON by hand and none can leak a 500 for bad input.
struct OAuthError: Error, Sendable, Equatable {
    /// The registered error code (`invalid_request`, `invalid_grant`, …).
    let code: String
    /// A sentence for the client's developer; never secrets, never internals.
    let description: String
    /// 400 for most errors, 401 for failed client authentication or a bad bearer token.
    let status: HTTPStatus
    /// Extra headers, such as `WWW-Authenticate` on a 401.
    var headers: [(String, String)] = []

    static func == (lhs: OAuthError, rhs: OAuthError) -> Bool {
        lhs.code == rhs.code && lhs.description == rhs.description && lhs.status == rhs.status
    }

    static func invalidRequest(_ description: String) -> OAuthError {
        OAuthError(code: "invalid_request", description: description, status: .badRequest)
    }

    /// Client authentication failed (RFC 6749 §5.2): 401, with a Basic challenge when the
    /// client tried Basic.
    static func invalidClient(_ description: String, challengeBasic: Bool = false) -> OAuthError {
        var error = OAuthError(code: "invalid_client", description: description, status: .unauthorized)
        if challengeBasic { error.headers.append(("WWW-Authenticate", #"Basic realm="portico""#)) }
        return error
    }

    static func invalidGrant(_ description: String) -> OAuthError {
        OAuthError(code: "invalid_grant", description: description, status: .badRequest)
    }

    static func unauthorizedClient(_ description: String) -> OAuthError {
        OAuthError(code: "unauthorized_client", description: description, status: .badRequest)
    }

    static func unsupportedGrantType(_ description: String) -> OAuthError {
        OAuthError(code: "unsupported_grant_type", description: description, status: .badRequest)
    }

    static func invalidScope(_ description: String) -> OAuthError {
        OAuthError(code: "invalid_scope", description: description, status: .badRequest)
    }

    /// A missing, malformed, expired or revoked bearer token at a resource endpoint (RFC 6750).
    static func invalidToken(_ description: String) -> OAuthError {
        OAuthError(
            code: "invalid_token", description: description, status: .unauthorized,
            headers: [
                (
                    "WWW-Authenticate",
                    #"Bearer realm="portico", error="invalid_token", error_description=\#(quoted(description))"#
                )
            ])
    }

    /// The token is fine but its scopes do not reach this resource (RFC 6750 §3.1).
    static func insufficientScope(_ description: String, required: String) -> OAuthError {
        OAuthError(
            code: "insufficient_scope", description: description, status: .forbidden,
            headers: [
                ("WWW-Authenticate", #"Bearer realm="portico", error="insufficient_scope", scope=\#(quoted(required))"#)
            ])
    }

    /// `value` as an RFC 9110 §5.6.4 quoted-string for a challenge parameter: quotes and
    /// backslashes escaped, control characters (which would end or split the header) replaced
    /// by spaces, so no description can break out of its parameter.
    static func quoted(_ value: String) -> String {
        var quoted = "\""
        for character in value.unicodeScalars {
            switch character {
            case "\"", "\\": quoted += "\\" + String(character)
            case _ where character.value < 0x20 || character.value == 0x7F: quoted += " "
            default: quoted.unicodeScalars.append(character)
            }
        }
        return quoted + "\""
    }

    /// Something went wrong on our side; says so without details (those go to the log).
    static func serverError() -> OAuthError {
        OAuthError(
            code: "server_error", description: "The server could not complete the request.",
            status: .internalServerError)
    }

    /// The JSON error response.
    func response() -> Response {
        var response = Response.json(
            raw: #"{"error":"\#(code)","error_description":\#(JSONValue.string(description).jsonString)}"#,
            status: status)
        response.headers["Cache-Control"] = "no-store"
        response.headers["Pragma"] = "no-cache"
        for (name, value) in headers { response.headers[name] = value }
        return response
    }
}
