import Foundation

extension Request {
    /// The cookies the client sent (`Cookie` header), by name; when a name repeats, the first
    /// wins, which RFC 6265 orders as the most specific path.
    public var cookies: [String: String] {
        var result: [String: String] = [:]
        for header in headers.values(for: "Cookie") {
            // Split on bytes, not Characters: a character such as U+0600 joins the `;` or `=`
            // after it into one grapheme, which hid the separator (found by fuzzing).
            for pair in Array(header.utf8).split(separator: UInt8(ascii: ";")) {
                guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { continue }
                // RFC 6265 §5.2: the name and the value each lose their surrounding white space
                // (`a = b` is the cookie `a`; found by fuzzing).
                let name = Self.trimmed(pair[..<equals])
                guard !name.isEmpty else { continue }
                var value = Self.trimmed(pair[(equals + 1)...])
                if value.count >= 2, value.first == UInt8(ascii: "\""), value.last == UInt8(ascii: "\"") {
                    value = value.dropFirst().dropLast()
                }
                let key = String(decoding: name, as: UTF8.self)
                if result[key] == nil {
                    result[key] = String(decoding: value, as: UTF8.self)
                }
            }
        }
        return result
    }

    /// `bytes` without leading and trailing spaces and tabs.
    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice = slice.dropLast() }
        return slice
    }

    /// The `Authorization: Basic` pair exactly as sent (RFC 7617), or nil when absent or
    /// malformed; OAuth client authentication must also call `formURLDecoded()` on it.
    public var basicCredentials: BasicCredentials? {
        headers["Authorization"].flatMap(BasicCredentials.init(authorization:))
    }

    /// The media type of the body without parameters, lowercased (`application/json`), or nil.
    public var contentType: String? {
        guard let value = headers["Content-Type"] else { return nil }
        let mediaType = value.split(separator: ";", maxSplits: 1).first ?? ""
        return mediaType.trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// Decodes an `application/x-www-form-urlencoded` body.
    ///
    /// Throws 415 when the body is declared as another media type and 400 on bad encoding, so a
    /// handler can just `try` it and let the server answer.
    public func form() throws(HTTPError) -> FormParameters {
        if let contentType, contentType != "application/x-www-form-urlencoded" {
            throw HTTPError(.unsupportedMediaType, "Expected application/x-www-form-urlencoded")
        }
        return try FormParameters(decoding: body)
    }

    /// Decodes a JSON body into `type`; malformed or mismatched JSON throws a 400 `HTTPError`
    /// whose message does not echo the decoder's internals.
    public func decodeJSON<Value: Decodable>(
        _ type: Value.Type = Value.self, using decoder: JSONDecoder = JSONDecoder()
    ) throws(HTTPError) -> Value {
        do {
            return try decoder.decode(type, from: Data(body))
        } catch {
            throw HTTPError.badRequest("Invalid JSON body")
        }
    }
}
