import Foundation
import PorticoCrypto

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One HTTP answer as tests read it, whichever client fetched it.
public struct TestReply: Sendable {
    /// The status code.
    public var status: Int
    /// The header fields; several fields of one name are folded into one, comma-separated (as
    /// URLSession on Linux does).
    public var headers: [String: String]
    /// The body as received.
    public var body: Data

    /// An answer from its parts (a raw client parses them itself).
    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The header field `name`, whatever its case.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The body as a JSON object (empty when it is not one).
    public var json: [String: JSONValue] {
        JSONValue(parsing: Array(body))?.objectValue ?? [:]
    }

    /// A string member of the JSON body.
    public func string(_ name: String) -> String? { json[name]?.stringValue }

    /// The `Location` of a redirect.
    public var location: String? { header("Location") }

    /// The `Set-Cookie` fields, split again where they were folded into one.
    public var setCookies: [String] {
        guard let folded = header("Set-Cookie") else { return [] }
        var cookies: [String] = []
        var current = ""
        for part in folded.components(separatedBy: ", ") {
            let startsCookie = part.range(of: #"^[A-Za-z0-9_\-]+="#, options: .regularExpression) != nil
            if startsCookie && !current.isEmpty {
                cookies.append(current)
                current = part
            } else {
                current = current.isEmpty ? part : current + ", " + part
            }
        }
        if !current.isEmpty { cookies.append(current) }
        return cookies
    }

    /// The `Set-Cookie` field for `name`.
    public func setCookie(_ name: String) -> String? {
        setCookies.first { $0.hasPrefix(name + "=") }
    }

    /// The value of hidden input `name` in the page (first occurrence).
    public func hiddenField(_ name: String) -> String? {
        let pattern = #"<input type="hidden" name=""# + name + #"" value="([^"]*)">"#
        guard let range = text.range(of: pattern, options: .regularExpression) else { return nil }
        let match = String(text[range])
        guard let valueStart = match.range(of: #"value=""#) else { return nil }
        return String(match[valueStart.upperBound...].dropLast(2))
    }

    /// The query items of the redirect's `Location`.
    public var redirectParameters: [String: String] {
        guard let location, let components = URLComponents(string: location) else { return [:] }
        var result: [String: String] = [:]
        for item in components.queryItems ?? [] { result[item.name] = item.value ?? "" }
        return result
    }

    /// The answer URLSession delivered as `response` and `data`.
    public init(_ response: URLResponse, data: Data) throws {
        guard let http = response as? HTTPURLResponse else { throw HarnessFailure("not an HTTP response") }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name] = value }
        }
        self.init(status: http.statusCode, headers: fields, body: data)
    }
}
