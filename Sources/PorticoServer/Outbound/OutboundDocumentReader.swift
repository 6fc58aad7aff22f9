import Foundation

/// Reads a whole answer to a GET of a document the provider fetches (a client metadata
/// document, a `jwks_uri`) from an ``OutboundConnection``: its status, headers and body, the body
/// never longer than ``limit`` bytes.
///
/// Why a bound of its own, checked as bytes arrive: the URL is the app's, and so is the server
/// behind it; an answer that claims (`Content-Length`) or turns out to be larger than a document
/// of a few keys or a client's metadata fails at once, so a hostile server costs at most that
/// much memory. The body may come with `Content-Length`, chunked, or up to the close.
struct OutboundDocumentReader {
    /// The most body bytes accepted.
    let limit: Int
    /// The most header bytes accepted.
    static let maximumHeadBytes = 8192

    /// Sends `request` and reads the answer within the connection's deadline.
    func exchange(on connection: OutboundConnection, request: [UInt8]) -> OutboundHTTPClient.Exchange {
        var answer: [UInt8] = []
        func failed(_ reason: String) -> OutboundHTTPClient.Exchange {
            OutboundHTTPClient.Exchange(outcome: .failed(reason), bytesRead: answer.count)
        }
        let ceiling = Self.maximumHeadBytes + limit
        do {
            try connection.send(request)
            while answer.count <= ceiling {
                if let end = OutboundHTTPClient.endOfHead(in: answer) {
                    let head = Self.headers(of: answer[..<end])
                    if let length = head["content-length"].flatMap({ Int($0) }) {
                        if length > limit { return failed("the document is larger than \(limit) bytes") }
                        if answer.count - end >= length { break }
                    } else if head["transfer-encoding"]?.lowercased().contains("chunked") == true,
                        Self.dechunked(answer[end...]) != nil
                    {
                        break
                    }
                }
                let chunk = try connection.receive(maximum: 16384)
                if chunk.isEmpty { break }
                answer += chunk
            }
        } catch {
            return failed("\(error)")
        }
        guard let status = OutboundHTTPClient.status(in: answer) else {
            return failed(
                answer.isEmpty
                    ? "the connection closed without an answer" : "the answer has no HTTP status line")
        }
        guard let end = OutboundHTTPClient.endOfHead(in: answer) else {
            return failed(answer.count > ceiling ? "the answer's headers are too long" : "the answer was cut short")
        }
        let headers = Self.headers(of: answer[..<end])
        var body = Array(answer[end...])
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            guard let decoded = Self.dechunked(body[...]) else {
                return failed(
                    answer.count > ceiling ? "the document is larger than \(limit) bytes" : "the answer was cut short")
            }
            body = decoded
        } else if let length = headers["content-length"].flatMap({ Int($0) }) {
            guard body.count >= length else { return failed("the answer was cut short") }
            body = Array(body.prefix(length))
        }
        guard body.count <= limit else { return failed("the document is larger than \(limit) bytes") }
        var exchange = OutboundHTTPClient.Exchange(outcome: .status(status), bytesRead: answer.count)
        exchange.headers = headers
        exchange.body = body
        return exchange
    }

    /// The header fields of `head` by lower-cased name (a repeated one joined with commas).
    static func headers(of head: ArraySlice<UInt8>) -> [String: String] {
        var fields: [String: String] = [:]
        for line in String(decoding: head, as: UTF8.self).split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            fields[name] = fields[name].map { "\($0), \(value)" } ?? value
        }
        return fields
    }

    /// The body of a complete chunked encoding (RFC 9112 §7.1), or nil while it is incomplete
    /// or malformed.
    static func dechunked(_ encoded: ArraySlice<UInt8>) -> [UInt8]? {
        var body: [UInt8] = []
        var index = encoded.startIndex
        while true {
            guard let lineEnd = encoded[index...].firstIndex(of: 0x0A), lineEnd > index else { return nil }
            var sizeText = String(decoding: encoded[index..<lineEnd], as: UTF8.self)
            sizeText = String(sizeText.prefix { $0 != ";" && $0 != "\r" })
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else {
                return nil
            }
            index = lineEnd + 1
            if size == 0 { return body }
            guard encoded.endIndex - index >= size + 2 else { return nil }
            body += encoded[index..<(index + size)]
            index += size + 2
        }
    }
}
