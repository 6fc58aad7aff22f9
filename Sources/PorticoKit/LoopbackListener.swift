import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The redirect catcher of RFC 8252 §7.3: a socket on 127.0.0.1 with a port the OS picks,
/// waiting for the browser's one `GET` of the callback.
///
/// Deliberately tiny rather than a web server: it reads at most ``maximumRequestBytes`` of one
/// request head (with a per-connection time-out), looks only at the request line, answers a
/// fixed page, and closes. Anything else (another path, another `state`, another method) gets a
/// short error answer and the listener keeps waiting until its deadline or cancellation.
final class LoopbackListener: Sendable {
    static let maximumRequestBytes = 16 * 1024

    /// The port listened on (the OS's choice when none was asked).
    let port: UInt16
    private let descriptor: Int32
    private let cancelled = LockedState<Bool>(false)

    /// Binds 127.0.0.1 on `port` (0: an ephemeral one) and starts listening.
    init(port requestedPort: UInt16 = 0) throws(AuthorizationError) {
        #if canImport(Glibc)
            let stream = Int32(SOCK_STREAM.rawValue)
        #else
            let stream: Int32 = SOCK_STREAM
        #endif
        let socketDescriptor = socket(AF_INET, stream, 0)
        guard socketDescriptor >= 0 else { throw Self.failure("cannot open the loopback socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = requestedPort.bigEndian
        if requestedPort != 0 {
            // A fixed port is used again by the next sign-in: do not wait out TIME_WAIT.
            var reuse: Int32 = 1
            setsockopt(socketDescriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        }
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(socketDescriptor, 8) == 0 else {
            close(socketDescriptor)
            throw Self.failure(
                requestedPort == 0 ? "cannot listen on 127.0.0.1" : "cannot listen on 127.0.0.1:\(requestedPort)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketDescriptor, $0, &length) }
        }
        guard named == 0 else {
            close(socketDescriptor)
            throw Self.failure("cannot read the loopback port")
        }
        descriptor = socketDescriptor
        port = UInt16(bigEndian: address.sin_port)
    }

    /// Makes ``serve(path:state:deadline:)`` stop within a tenth of a second.
    func cancel() {
        cancelled.set()
    }

    /// Blocks (on its own thread, never a cooperative one) until the callback for `path` with
    /// `state` arrives, the deadline passes, or ``cancel()`` is called; closes the socket
    /// before returning either way.
    func serve(path: String, state: String, deadline: ContinuousClock.Instant) -> Result<URL, AuthorizationError> {
        defer { close(descriptor) }
        while true {
            if cancelled.value { return .failure(.taskCancelled) }
            if ContinuousClock.now >= deadline {
                return .failure(AuthorizationError(.timedOut, "the browser did not come back in time"))
            }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let connection = accept(descriptor, nil, nil)
            guard connection >= 0 else { continue }
            #if !canImport(Glibc)
                // Darwin has no MSG_NOSIGNAL: without SO_NOSIGPIPE a browser that hangs up while
                // the answer is written would kill the app with SIGPIPE.
                var one: Int32 = 1
                setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            #endif
            if let url = handle(connection, path: path, state: state) { return .success(url) }
        }
    }

    /// Reads one request head, answers it, and returns the callback URL when it is the one.
    private func handle(_ connection: Int32, path: String, state: String) -> URL? {
        defer { close(connection) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 2048)
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        while head.count < Self.maximumRequestBytes {
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            head += buffer[0..<count]
            if head.contains(sequence: end) { break }
        }
        guard let lineEnd = head.firstIndex(of: UInt8(ascii: "\r")) else {
            respond(connection, status: "400 Bad Request", page: LoopbackPages.notThisPage)
            return nil
        }
        let parts = String(decoding: head[..<lineEnd], as: UTF8.self).split(separator: " ")
        guard parts.count == 3, parts[0] == "GET", parts[1].hasPrefix("/") else {
            respond(connection, status: "400 Bad Request", page: LoopbackPages.notThisPage)
            return nil
        }
        let target = String(parts[1])
        guard let url = URL(string: "http://127.0.0.1:\(port)\(target)"), url.path == path,
            let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems,
            items.contains(where: { $0.name == "state" && $0.value == state })
        else {
            respond(connection, status: "404 Not Found", page: LoopbackPages.notThisPage)
            return nil
        }
        let failed = items.contains { $0.name == "error" }
        respond(connection, status: "200 OK", page: failed ? LoopbackPages.notSignedIn : LoopbackPages.signedIn)
        return url
    }

    private func respond(_ connection: Int32, status: String, page: String) {
        let body = Array(page.utf8)
        let head =
            "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(body.count)\r\n"
            + "Cache-Control: no-store\r\nReferrer-Policy: no-referrer\r\n"
            + "Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'\r\nConnection: close\r\n\r\n"
        let bytes = Array(head.utf8) + body
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Self.noSignal) }
            guard count > 0 else { return }
            sent += count
        }
        shutdown(connection, Int32(SHUT_WR))
    }

    #if canImport(Glibc)
        private static let noSignal = Int32(MSG_NOSIGNAL)
    #else
        private static let noSignal: Int32 = 0
    #endif

    private static func failure(_ message: String) -> AuthorizationError {
        AuthorizationError(.network, "\(message): \(String(cString: strerror(errno)))")
    }
}

/// The loopback listener's fixed pages; nothing from the request is ever echoed.
enum LoopbackPages {
    static func page(_ title: String, _ text: String) -> String {
        """
        <!doctype html><html lang="en"><head><meta charset="utf-8">\
        <meta name="viewport" content="width=device-width, initial-scale=1"><title>\(title)</title>\
        <style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;\
        color:#111;background:#fff;line-height:1.5}h1{font-size:1.5rem}</style></head>\
        <body><main><h1>\(title)</h1><p>\(text)</p></main></body></html>
        """
    }

    static let signedIn = page("You are signed in", "You can close this tab and return to the app.")
    static let notSignedIn = page(
        "Sign-in did not complete", "You can close this tab; the app will tell you what happened.")
    static let notThisPage = page("Nothing to see here", "This address only receives the sign-in result.")
}

extension Array where Element == UInt8 {
    /// Whether `sequence` occurs in the array.
    fileprivate func contains(sequence: [UInt8]) -> Bool {
        guard count >= sequence.count else { return false }
        for start in 0...(count - sequence.count) where self[start..<(start + sequence.count)].elementsEqual(sequence) {
            return true
        }
        return false
    }
}
