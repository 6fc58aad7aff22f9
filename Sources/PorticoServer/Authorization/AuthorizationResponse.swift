import PorticoHTTP

/// Builds the redirects that end an authorization request at the client's redirect URI.
///
/// Parameters are appended to the URI's query (keeping what it has, RFC 6749 §3.1.2) and always
/// include `iss` (RFC 9207), so the client can tell which provider answered.
enum AuthorizationResponse {
    /// The success redirect: `code`, `state` (if the client sent one) and `iss`.
    static func success(
        code: String, request: AuthorizationRequest, issuer: String, status: HTTPStatus = .found
    ) -> Response {
        var parameters = [("code", code)]
        if let state = request.state { parameters.append(("state", state)) }
        parameters.append(("iss", issuer))
        return PageLayout.redirect(to: location(request.redirectURI, parameters), status: status)
    }

    /// The error redirect: `error`, `error_description`, `state` and `iss`.
    static func failure(
        _ error: AuthorizationRedirectError, redirectURI: String, state: String?, issuer: String,
        status: HTTPStatus = .found
    ) -> Response {
        var parameters = [("error", error.code), ("error_description", error.description)]
        if let state { parameters.append(("state", state)) }
        parameters.append(("iss", issuer))
        return PageLayout.redirect(to: location(redirectURI, parameters), status: status)
    }

    /// `uri` with `parameters` added to its query.
    static func location(_ uri: String, _ parameters: [(String, String)]) -> String {
        let query = parameters.map { "\(percentEncode($0.0))=\(percentEncode($0.1))" }.joined(separator: "&")
        let separator = uri.contains("?") ? (uri.hasSuffix("?") || uri.hasSuffix("&") ? "" : "&") : "?"
        return uri + separator + query
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters, so a value can never
    /// add parameters or end the URL early.
    static func percentEncode(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                encoded.unicodeScalars.append("%")
                encoded.unicodeScalars.append(hex[Int(byte >> 4)])
                encoded.unicodeScalars.append(hex[Int(byte & 0x0F)])
            }
        }
        return encoded
    }
}
