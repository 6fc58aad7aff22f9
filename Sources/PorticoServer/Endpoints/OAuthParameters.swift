import PorticoHTTP

/// The parameters of an OAuth request body, checked the way RFC 6749 §3.1 and §3.2 ask.
///
/// Every protocol endpoint that takes a form (token, revoke, introspect, userinfo by POST) reads
/// its body through this one type, so the rules cannot drift between endpoints: the body must
/// be `application/x-www-form-urlencoded`, no parameter may be sent twice, and a parameter
/// with an empty value counts as absent.
struct OAuthParameters: Sendable {
    private let values: [String: String]

    /// Parameters from already-checked pairs (used by the form parser and in tests).
    init(_ values: [String: String]) {
        self.values = values
    }

    /// Reads the form body of `request`.
    ///
    /// - Throws: `invalid_request` when the body is not a form, is not valid form encoding, or
    ///   repeats a parameter.
    init(formOf request: Request) throws(OAuthError) {
        let form = try Self.form(of: request)
        var values: [String: String] = [:]
        var seen = Set<String>()
        for (name, value) in form {
            guard seen.insert(name).inserted else { throw .invalidRequest("The parameter \(name) is repeated.") }
            if !value.isEmpty { values[name] = value }
        }
        self.init(values)
    }

    /// The body of `request` as form parameters, repeats and empty values as sent: an
    /// `invalid_request` unless it is declared and encoded as a form.
    static func form(of request: Request) throws(OAuthError) -> FormParameters {
        guard isForm(request) else {
            throw .invalidRequest("The request body must be application/x-www-form-urlencoded.")
        }
        do {
            return try FormParameters(decoding: request.body)
        } catch {
            throw .invalidRequest("The request body is not valid form encoding.")
        }
    }

    /// Whether the body is declared `application/x-www-form-urlencoded` (parameters such as
    /// `charset` allowed). Compares bytes rather than calling `Request.contentType`, which
    /// trims with Foundation: this runs on every token request.
    static func isForm(_ request: Request) -> Bool {
        guard let value = request.headers["Content-Type"] else { return false }
        let expected = Array("application/x-www-form-urlencoded".utf8)
        var bytes = value.utf8.drop { $0 == UInt8(ascii: " ") }.makeIterator()
        for byte in expected {
            guard let next = bytes.next(), next | 0x20 == byte | 0x20 else { return false }
        }
        let rest = bytes.next()
        return rest == nil || rest == UInt8(ascii: ";") || rest == UInt8(ascii: " ")
    }

    /// The value of `name`, or nil when it was not sent or sent empty.
    subscript(name: String) -> String? {
        values[name]
    }

    /// The value of `name`, which the request must carry.
    func required(_ name: String) throws(OAuthError) -> String {
        guard let value = values[name] else { throw .invalidRequest("The parameter \(name) is missing.") }
        return value
    }
}
