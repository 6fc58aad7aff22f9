/// An HTTP response status code.
///
/// A struct so that any code can be sent while the common ones read clearly at the point of use;
/// libmicrohttpd writes the reason phrase itself.
public struct HTTPStatus: RawRepresentable, Hashable, Sendable, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    /// The three-digit status code.
    public let rawValue: Int

    /// Wraps a status code as sent on the status line.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Lets `200` stand for `HTTPStatus.ok` where a literal is clearer.
    public init(integerLiteral value: Int) {
        self.rawValue = value
    }

    /// The code, so that statuses print as numbers in logs.
    public var description: String { String(rawValue) }

    /// 200: the request succeeded.
    public static let ok = HTTPStatus(rawValue: 200)
    /// 201: a resource was created.
    public static let created = HTTPStatus(rawValue: 201)
    /// 204: success without a body.
    public static let noContent = HTTPStatus(rawValue: 204)
    /// 301: the resource moved for good.
    public static let movedPermanently = HTTPStatus(rawValue: 301)
    /// 302: the usual redirect of OAuth authorization responses.
    public static let found = HTTPStatus(rawValue: 302)
    /// 303: redirect after a form post, always followed with `GET`.
    public static let seeOther = HTTPStatus(rawValue: 303)
    /// 304: the cached copy is still valid.
    public static let notModified = HTTPStatus(rawValue: 304)
    /// 307: redirect that keeps the method and body.
    public static let temporaryRedirect = HTTPStatus(rawValue: 307)
    /// 400: the request is malformed (bad encoding, bad JSON, missing fields).
    public static let badRequest = HTTPStatus(rawValue: 400)
    /// 401: credentials are missing or wrong.
    public static let unauthorized = HTTPStatus(rawValue: 401)
    /// 403: the credentials are valid but not enough.
    public static let forbidden = HTTPStatus(rawValue: 403)
    /// 404: no route matches the path.
    public static let notFound = HTTPStatus(rawValue: 404)
    /// 405: the path exists but not for this method; sent with `Allow`.
    public static let methodNotAllowed = HTTPStatus(rawValue: 405)
    /// 413: the request body is larger than the configured limit.
    public static let contentTooLarge = HTTPStatus(rawValue: 413)
    /// 415: the body's media type is not one the endpoint reads.
    public static let unsupportedMediaType = HTTPStatus(rawValue: 415)
    /// 429: the client sends too many requests.
    public static let tooManyRequests = HTTPStatus(rawValue: 429)
    /// 431: the request's header fields are too large.
    public static let requestHeaderFieldsTooLarge = HTTPStatus(rawValue: 431)
    /// 500: a handler failed; the body never carries details.
    public static let internalServerError = HTTPStatus(rawValue: 500)
    /// 503: the server is shutting down or overloaded.
    public static let serviceUnavailable = HTTPStatus(rawValue: 503)
}
