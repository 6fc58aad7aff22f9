import Foundation

/// A user id and password from an `Authorization: Basic` header (RFC 7617).
///
/// The pair is exactly what the header carries after base64 and UTF-8 decoding. OAuth clients
/// additionally form-urlencode their id and secret before base64 (RFC 6749 §2.3.1); call
/// `formURLDecoded()` for that, since other uses of Basic must not decode twice.
public struct BasicCredentials: Sendable, Hashable {
    /// The user id: everything before the first colon.
    public var user: String
    /// The password: everything after the first colon (it may contain colons).
    public var password: String

    /// Wraps an already-decoded pair.
    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// Parses an `Authorization` header value; nil unless it is `Basic` with valid base64 of
    /// UTF-8 text containing a colon.
    public init?(authorization: String) {
        let bytes = Array(authorization.utf8)
        let scheme = Array("basic".utf8)
        guard bytes.count > scheme.count + 1,
            zip(bytes, scheme).allSatisfy({ ($0 | 0x20) == $1 }),
            bytes[scheme.count] == UInt8(ascii: " ")
        else { return nil }
        // Optional whitespace around the token68 (RFC 9110 §11.4: SP / HTAB), trimmed by hand:
        // Foundation's trimming was a measurable share of every token request.
        var first = scheme.count + 1
        var last = bytes.count
        while first < last && (bytes[first] == 0x20 || bytes[first] == 0x09) { first += 1 }
        while last > first && (bytes[last - 1] == 0x20 || bytes[last - 1] == 0x09) { last -= 1 }
        let encoded = String(decoding: bytes[first..<last], as: UTF8.self)
        guard let data = Data(base64Encoded: encoded),
            let text = String(validating: Array(data), as: UTF8.self),
            let colon = text.firstIndex(of: ":")
        else { return nil }
        user = String(text[..<colon])
        password = String(text[text.index(after: colon)...])
    }

    /// The pair with both parts form-urlencoding-decoded, as RFC 6749 §2.3.1 requires for OAuth
    /// client authentication; throws a 400 `HTTPError` on bad percent-encoding.
    public func formURLDecoded() throws(HTTPError) -> BasicCredentials {
        BasicCredentials(
            user: try PercentDecoding.decode(Array(user.utf8)[...], plusAsSpace: true),
            password: try PercentDecoding.decode(Array(password.utf8)[...], plusAsSpace: true))
    }
}
