import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A minimal HTTP/1.1 client over a plain socket, for requests that send `Authorization:
/// Basic`.
///
/// Why: when such a request fails, the server rightly answers 401 with
/// `WWW-Authenticate: Basic`, and Linux's URLSession then either waits forever for credentials
/// or cancels the task and drops the body (whatever a session delegate answers), so the test
/// could not read the OAuth error. One request per connection (`Connection: close`), bounded by
/// socket timeouts so a test can never hang.
enum ProtocolRawHTTP {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func send(
        port: UInt16, method: String, path: String, headers: [String: String], body: Data?
    ) throws -> ProtocolReply {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket failed") }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure(description: "connect failed") }

        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body?.count ?? 0)\r\n\r\n"
        var outgoing = Array(head.utf8)
        if let body { outgoing += Array(body) }
        var sent = 0
        while sent < outgoing.count {
            let written = outgoing[sent...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard written > 0 else { throw Failure(description: "write failed") }
            sent += written
        }

        var incoming: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { break }
            guard count > 0 else { throw Failure(description: "read failed or timed out") }
            incoming += buffer[0..<count]
        }
        return try parse(incoming)
    }

    private static func parse(_ bytes: [UInt8]) throws -> ProtocolReply {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0...(max(0, bytes.count - 4))).first(where: { Array(bytes[$0..<$0 + 4]) == separator })
        else { throw Failure(description: "no header end in \(bytes.count) bytes") }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw Failure(description: "bad status line \(lines[0])")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        return ProtocolReply(status: status, headers: headers, body: Data(bytes[(end + 4)...]))
    }
}
