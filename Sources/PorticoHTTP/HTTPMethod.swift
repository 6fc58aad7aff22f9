/// An HTTP request method.
///
/// A struct rather than a closed enum so that a request with an uncommon method (for example
/// `PROPFIND`) still reaches the router, which answers it with 405 instead of failing to parse.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The method token exactly as sent on the request line (methods are case-sensitive).
    public let rawValue: String

    /// Wraps a method token; no normalisation, because RFC 9110 makes methods case-sensitive.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// `GET`: reads a resource; the router answers `HEAD` with the same handler.
    public static let get = HTTPMethod(rawValue: "GET")
    /// `HEAD`: like `GET` without a body; served by the `GET` handler unless one is registered.
    public static let head = HTTPMethod(rawValue: "HEAD")
    /// `POST`: form submissions and the OAuth token endpoint.
    public static let post = HTTPMethod(rawValue: "POST")
    /// `PUT`: replaces a resource.
    public static let put = HTTPMethod(rawValue: "PUT")
    /// `DELETE`: removes a resource.
    public static let delete = HTTPMethod(rawValue: "DELETE")
    /// `PATCH`: changes part of a resource.
    public static let patch = HTTPMethod(rawValue: "PATCH")
    /// `OPTIONS`: asks which methods a resource allows.
    public static let options = HTTPMethod(rawValue: "OPTIONS")

    /// The method token, so that a method prints as it appears on the wire.
    public var description: String { rawValue }
}
