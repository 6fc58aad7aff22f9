import Foundation

/// What a handler answers: a status, header fields and a body.
///
/// `Content-Length` is added by the server; a body given to a `HEAD` request is dropped while
/// its headers (and length) are still sent.
public struct Response: Sendable {
    /// The status code.
    public var status: HTTPStatus
    /// Header fields, sent in order; repeated names are sent as separate fields.
    public var headers: HTTPHeaders
    /// The body bytes.
    public var body: [UInt8]

    /// Creates a response from raw parts; the helpers below are shorter for the usual kinds.
    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A `text/plain; charset=utf-8` response.
    public static func text(_ text: String, status: HTTPStatus = .ok) -> Response {
        Response(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(text.utf8))
    }

    /// A `text/html; charset=utf-8` response; the caller escapes what it interpolates.
    public static func html(_ html: String, status: HTTPStatus = .ok) -> Response {
        Response(status: status, headers: ["Content-Type": "text/html; charset=utf-8"], body: Array(html.utf8))
    }

    /// An `application/json` response from already-serialised JSON, for constant bodies that
    /// should not pay for an encoder on every request.
    public static func json(raw json: String, status: HTTPStatus = .ok) -> Response {
        Response(status: status, headers: ["Content-Type": "application/json"], body: Array(json.utf8))
    }

    /// An `application/json` response encoding `value`; slashes are not escaped so URLs in
    /// discovery documents stay readable.
    public static func json<Value: Encodable>(
        _ value: Value, status: HTTPStatus = .ok, encoder: JSONEncoder = Response.defaultJSONEncoder()
    ) throws -> Response {
        Response(status: status, headers: ["Content-Type": "application/json"], body: Array(try encoder.encode(value)))
    }

    /// A redirect to `location` (302 by default, as OAuth authorization responses use).
    public static func redirect(to location: String, status: HTTPStatus = .found) -> Response {
        Response(status: status, headers: ["Location": location])
    }

    /// The encoder `json(_:status:encoder:)` uses unless given another: sorted keys for
    /// stable output, unescaped slashes.
    public static func defaultJSONEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// Adds a `Set-Cookie` field for `cookie`; each cookie is sent as its own field.
    public mutating func setCookie(_ cookie: Cookie) {
        headers.add("Set-Cookie", value: cookie.headerValue)
    }

    /// A copy with `cookie` added, for building a response in one expression.
    public func settingCookie(_ cookie: Cookie) -> Response {
        var copy = self
        copy.setCookie(cookie)
        return copy
    }
}
