import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A plain TCP client for what URLSession will not send or cannot read: garbage request lines,
/// huge headers, bodies that stop half way, several requests on one connection, exact header
/// fields, and answers to `Authorization: Basic` (a 401 to those carries a Basic challenge,
/// on which Linux's URLSession waits forever or drops the body).
///
/// Every socket has send and receive timeouts, so no test can hang on it.
public enum RawHTTPClient {
    /// Sends `request` and reads until the server closes (or the timeout), returning the text;
    /// "" when the connection could not be made. With `closeAfterSending`, the socket is closed
    /// right after sending, nothing read.
    public static func exchange(
        port: UInt16, _ request: [UInt8], closeAfterSending: Bool = false, timeoutSeconds: Int = 10,
        ipv6: Bool = false
    ) -> String {
        guard let socket = try? LoopbackSocket(port: port, ipv6: ipv6, timeoutSeconds: timeoutSeconds) else {
            return ""
        }
        // A server may answer and close before taking all of a too-large request: read anyway.
        _ = socket.write(request)
        if closeAfterSending { return "" }
        return String(decoding: socket.readToEnd().bytes, as: UTF8.self)
    }

    /// ``exchange(port:_:closeAfterSending:timeoutSeconds:ipv6:)`` for text requests.
    public static func exchange(port: UInt16, _ request: String, timeoutSeconds: Int = 10) -> String {
        exchange(port: port, Array(request.utf8), timeoutSeconds: timeoutSeconds)
    }

    /// The status code of the first response in `text`, or nil when there is none.
    public static func status(of text: String) -> Int? {
        let parts = text.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1.") else { return nil }
        return Int(parts[1])
    }

    /// Sends one well-formed request (`Host`, `Connection: close` and `Content-Length` added)
    /// and parses the answer; throws when the connection fails or no whole answer arrives.
    public static func send(
        host: String = "127.0.0.1", port: UInt16, method: String, path: String, headers: [String: String],
        body: Data?, timeoutSeconds: Int = 20
    ) throws -> TestReply {
        let socket = try LoopbackSocket(host: host, port: port, timeoutSeconds: timeoutSeconds)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body?.count ?? 0)\r\n\r\n"
        guard socket.write(Array(head.utf8) + Array(body ?? Data())) else { throw HarnessFailure("write failed") }
        let (incoming, complete) = socket.readToEnd()
        guard complete else { throw HarnessFailure("read failed or timed out") }
        return try parse(incoming)
    }

    /// The first answer in `bytes`: status line, header fields (repeated ones folded), body.
    public static func parse(_ bytes: [UInt8]) throws -> TestReply {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard
            let end = (0...(max(0, bytes.count - 4))).first(where: {
                Array(bytes[$0..<min($0 + 4, bytes.count)]) == separator
            })
        else { throw HarnessFailure("no header end in \(bytes.count) bytes") }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw HarnessFailure("bad status line \(lines[0])")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        return TestReply(status: status, headers: headers, body: Data(bytes[(end + 4)...]))
    }
}

/// A connection kept open across several steps, for tests that hold connections, pipeline
/// requests or send a request in pieces.
public final class RawConnection {
    private let socket: LoopbackSocket?

    /// Connects to `127.0.0.1:port`; a failed connection reads as closed.
    public init(port: UInt16, timeoutSeconds: Int = 10) {
        socket = try? LoopbackSocket(port: port, timeoutSeconds: timeoutSeconds)
    }

    /// Sends `text` (what the kernel takes of it); false once the connection refuses bytes.
    @discardableResult public func send(_ text: String) -> Bool {
        socket?.write(Array(text.utf8)) ?? false
    }

    /// Everything until the server closes or the timeout passes.
    public func readAll() -> String {
        String(decoding: socket?.readToEnd().bytes ?? [], as: UTF8.self)
    }
}

/// A TCP socket to a loopback port with send and receive timeouts; closed when released.
final class LoopbackSocket {
    /// -1 once closed. A throwing initializer of a class whose stored properties are all set
    /// still runs `deinit`: the failed connect's close and deinit's would otherwise close the
    /// number twice, and in between another thread of the test process (an in-process server
    /// accepting a connection) may have been given it; closing that socket under
    /// libmicrohttpd aborted a parallel test run ("Failed to remove FD from epoll set").
    private var descriptor: Int32

    init(host: String = "127.0.0.1", port: UInt16, ipv6: Bool = false, timeoutSeconds: Int) throws {
        descriptor = socket(ipv6 ? AF_INET6 : AF_INET, Self.streamType, 0)
        guard descriptor >= 0 else { throw HarnessFailure("socket failed") }
        #if canImport(Darwin)
            var one: Int32 = 1
            setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected: Int32
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            address.sin6_addr = in6addr_loopback
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr(host)
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard connected == 0 else {
            close(descriptor)
            descriptor = -1
            throw HarnessFailure("connect to port \(port) failed")
        }
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    #if canImport(Glibc)
        private static let streamType = Int32(SOCK_STREAM.rawValue)
        /// A peer that closed early makes `send` fail instead of killing the test with SIGPIPE.
        private static let noSignal = Int32(MSG_NOSIGNAL)
    #else
        private static let streamType = SOCK_STREAM
        private static let noSignal: Int32 = 0
    #endif

    /// Writes all of `bytes`; false when the connection refused some.
    func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, Self.noSignal)
            }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// What arrives until the peer closes; `complete` is false when a read failed or timed out.
    func readToEnd() -> (bytes: [UInt8], complete: Bool) {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count == 0 { return (received, true) }
            guard count > 0 else { return (received, false) }
            received.append(contentsOf: chunk[0..<count])
        }
    }
}
