import Foundation
import PorticoTesting
import Testing

@testable import PorticoHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// Limits that keep one client, or too many, from taking the server: a bounded async queue,
/// a per-client connection cap and body limits by kind and route, over real sockets.
@Suite struct OverloadTests {
    /// With the async queue full, the next async request gets 503 with `Retry-After` at once
    /// (it does not wait behind the others), synchronous routes still answer, and the queued
    /// requests complete once they can.
    @Test func fullAsyncQueueAnswers503WithRetryAfterAtOnce() async throws {
        let gate = Gate()
        var configuration = ServerConfiguration(port: 0, threads: 2, logRequests: false, workerThreads: 1)
        configuration.maxPendingAsyncRequests = 2
        let server = try startServer(configuration: configuration) { router in
            router.postAsync("/park") { _ in
                await gate.wait()
                return .text("parked")
            }
        }
        defer { server.shutdown() }
        let parked = (0..<2).map { _ in Task { try await fetch(server, "/park", method: "POST") } }
        #expect(await eventually { gate.arrivals == 2 })

        let refused = try await fetch(server, "/park", method: "POST")
        #expect(refused.status == 503)
        #expect(refused.header("Retry-After") == "1")
        #expect(try await fetch(server, "/healthz").status == 200)
        #expect(gate.arrivals == 2)  // the refused one never ran

        gate.open()
        for task in parked {
            #expect(try await task.value.status == 200)
        }
        #expect(try await fetch(server, "/park", method: "POST").status == 200)
    }

    /// The router's overload answer replaces the plain text for a request that finds the queue
    /// full: it sees the request (here, to answer in its language), and goes out as 503 with
    /// `Retry-After: 1` added even though it set neither.
    @Test func theRoutersOverloadAnswerIsSentAs503WithRetryAfter() async throws {
        let gate = Gate()
        let server = try startQueueOfOne(parkingAt: gate) { router in
            router.overloaded { request in
                .text("busy for \(request.headers["Accept-Language"] ?? "?")", status: .ok)
            }
        }
        defer { server.shutdown() }
        let parked = Task { try await fetch(server, "/park", method: "POST") }
        #expect(await eventually { gate.arrivals == 1 })

        let refused = try await fetch(server, "/park", method: "POST", headers: ["Accept-Language": "zh-CN"])
        #expect(refused.status == 503)
        #expect(refused.header("Retry-After") == "1")
        #expect(refused.text == "busy for zh-CN")
        #expect(gate.arrivals == 1)

        gate.open()
        #expect(try await parked.value.status == 200)
    }

    /// An overload answer that sets its own `Retry-After` keeps it (a page may ask for a longer
    /// pause); one the router's handler declines (nil) is the server's plain text.
    @Test func anOverloadAnswerKeepsItsOwnRetryAfterAndNilLeavesThePlainText() async throws {
        let gate = Gate()
        let server = try startQueueOfOne(parkingAt: gate) { router in
            router.overloaded { request in
                guard request.headers["Accept"] == "text/html" else { return nil }
                var response = Response.text("come back later")
                response.headers["Retry-After"] = "7"
                return response
            }
        }
        defer { server.shutdown() }
        let parked = Task { try await fetch(server, "/park", method: "POST") }
        #expect(await eventually { gate.arrivals == 1 })

        let page = try await fetch(server, "/park", method: "POST", headers: ["Accept": "text/html"])
        #expect(page.status == 503)
        #expect(page.header("Retry-After") == "7")
        #expect(page.text == "come back later")
        let plain = try await fetch(server, "/park", method: "POST")
        #expect(plain.status == 503)
        #expect(plain.header("Retry-After") == "1")
        #expect(plain.text == "Server is busy; try again shortly")
        #expect(gate.arrivals == 1)

        gate.open()
        #expect(try await parked.value.status == 200)
    }

    /// While the worker queue is full, an async route's first step still answers what it can
    /// on the epoll thread; only what it hands over is refused with 503.
    @Test func aFirstStepStillAnswersWhileTheQueueIsFull() async throws {
        let gate = Gate()
        let server = try startQueueOfOne(parkingAt: gate) { router in
            router.addAsync(
                .post, "/maybe", immediate: { request in request.query["fast"] == nil ? nil : .text("first step") },
                { _ in .text("handler") })
        }
        defer { server.shutdown() }
        let parked = Task { try await fetch(server, "/park", method: "POST") }
        #expect(await eventually { gate.arrivals == 1 })

        let fast = try await fetch(server, "/maybe?fast=1", method: "POST")
        #expect(fast.status == 200)
        #expect(fast.text == "first step")
        let slow = try await fetch(server, "/maybe", method: "POST")
        #expect(slow.status == 503)
        #expect(slow.header("Retry-After") == "1")

        gate.open()
        #expect(try await parked.value.status == 200)
    }

    /// One address holding `maxConnectionsPerClient` connections gets no more served: the next
    /// `maxWaitingConnectionsPerClient` wait, with their requests held, and any past those are
    /// closed at once; another address is still served, and a freed slot goes to the oldest
    /// waiting connection, whose held request is then answered.
    @Test func perClientCapHoldsTheNextConnectionsAndRefusesThePastThem() async throws {
        let server = try startCapped(served: 4, waiting: 2, hold: .seconds(30))
        defer { server.shutdown() }
        // Four half-sent requests from 127.0.0.1 hold their connections.
        let served = (0..<4).map { _ in LoopbackSocket(port: server.port, from: "127.0.0.1") }
        for socket in served { socket.send("GET /healthz HTTP/1.1\r\nHost: x\r\n") }
        #expect(await eventually { (server.connectionCount ?? 0) >= 4 })

        let waiting = (0..<2).map { _ in LoopbackSocket(port: server.port, from: "127.0.0.1") }
        for socket in waiting { socket.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n") }
        #expect(await eventually { (server.connectionCount ?? 0) >= 6 })
        #expect(waiting[0].readResponse(within: .milliseconds(300)) == nil)  // held, unanswered

        let seventh = LoopbackSocket(port: server.port, from: "127.0.0.1")
        seventh.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(seventh.readAll() == "")  // accepted and closed at once, unanswered

        let other = LoopbackSocket(port: server.port, from: "127.0.0.2")
        other.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(other.readAll().hasPrefix("HTTP/1.1 200"))

        // A served connection closes: the oldest waiting one is served at once, long before
        // its hold would end; the other still waits.
        served[0].close()
        #expect(waiting[0].readResponse(within: .seconds(5))?.hasPrefix("HTTP/1.1 200") == true)
        #expect(waiting[1].readResponse(within: .milliseconds(300)) == nil)
        // Its connection stays served.
        waiting[0].send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(waiting[0].readResponse(within: .seconds(5))?.hasPrefix("HTTP/1.1 200") == true)

        // Freed slots can be used again.
        for socket in served + waiting { socket.close() }
        #expect(await eventually { (server.connectionCount ?? 99) == 0 })
        let again = LoopbackSocket(port: server.port, from: "127.0.0.1")
        again.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(again.readAll().hasPrefix("HTTP/1.1 200"))
    }

    /// A request held on a waiting connection for its whole hold gets 503 with `Retry-After`,
    /// and the connection stays open (a client told to wait has no reason to reconnect); once
    /// a slot frees, the same connection is served.
    @Test func aRequestHeldPastItsHoldGets503OnAConnectionKeptOpen() async throws {
        let server = try startCapped(served: 1, waiting: 1, hold: .milliseconds(200))
        defer { server.shutdown() }
        let served = LoopbackSocket(port: server.port, from: "127.0.0.1")
        served.send("GET /healthz HTTP/1.1\r\nHost: x\r\n")
        #expect(await eventually { (server.connectionCount ?? 0) >= 1 })

        let waiting = LoopbackSocket(port: server.port, from: "127.0.0.1")
        for _ in 0..<2 {
            waiting.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            let answer = try #require(waiting.readResponse(within: .seconds(5)))
            #expect(answer.hasPrefix("HTTP/1.1 503"))
            #expect(answer.lowercased().contains("retry-after: 1\r\n"))
            #expect(!answer.lowercased().contains("connection: close"))
        }
        served.close()
        #expect(await eventually { (server.connectionCount ?? 99) == 1 })
        waiting.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(waiting.readResponse(within: .seconds(5))?.hasPrefix("HTTP/1.1 200") == true)
    }

    /// A trusted proxy's connections are not capped (behind it, every client shares its
    /// address), while any other peer still is.
    @Test func trustedProxyConnectionsAreNotCapped() async throws {
        var configuration = ServerConfiguration(port: 0, threads: 2, logRequests: false)
        configuration.maxConnectionsPerClient = 4
        configuration.maxWaitingConnectionsPerClient = 0
        configuration.trustedProxies = [try #require(IPAddressRange("127.0.0.1/32"))]
        let server = try startServer(configuration: configuration)
        defer { server.shutdown() }
        let proxyHeld = (0..<6).map { _ in LoopbackSocket(port: server.port, from: "127.0.0.1") }
        for socket in proxyHeld { socket.send("GET /healthz HTTP/1.1\r\nHost: x\r\n") }
        #expect(await eventually { (server.connectionCount ?? 0) >= 6 })
        let seventh = LoopbackSocket(port: server.port, from: "127.0.0.1")
        seventh.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(seventh.readAll().hasPrefix("HTTP/1.1 200"))

        let clientHeld = (0..<4).map { _ in LoopbackSocket(port: server.port, from: "127.0.0.2") }
        // (with no connections allowed to wait, the next is refused at once)
        for socket in clientHeld { socket.send("GET /healthz HTTP/1.1\r\nHost: x\r\n") }
        #expect(await eventually { (server.connectionCount ?? 0) >= 10 })
        let fifth = LoopbackSocket(port: server.port, from: "127.0.0.2")
        fifth.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(fifth.readAll() == "")  // accepted and closed at once, unanswered
    }

    /// Behind a trusted proxy the cap bounds each forwarded client's requests in flight: past
    /// it that client gets 503 with `Retry-After` while another client behind the same proxy is
    /// served, and its share comes back as its requests end.
    @Test func forwardedClientPastItsShareGets503WithRetryAfter() async throws {
        let gate = Gate()
        var configuration = ServerConfiguration(port: 0, threads: 2, logRequests: false, workerThreads: 1)
        configuration.maxConnectionsPerClient = 2
        configuration.trustedProxies = [try #require(IPAddressRange("127.0.0.1/32"))]
        let server = try startServer(configuration: configuration) { router in
            router.postAsync("/park") { _ in
                await gate.wait()
                return .text("parked")
            }
            router.get("/who") { request in .text(request.remoteAddress) }
            router.get("/keys", constant: .text("keys"))
        }
        defer { server.shutdown() }
        let first = ["X-Forwarded-For": "192.0.2.1"]
        let parked = (0..<2).map { _ in Task { try await fetch(server, "/park", method: "POST", headers: first) } }
        #expect(await eventually { gate.arrivals == 2 })

        let refused = try await fetch(server, "/who", headers: first)
        #expect(refused.status == 503)
        #expect(refused.header("Retry-After") == "1")
        let other = try await fetch(server, "/who", headers: ["X-Forwarded-For": "192.0.2.2"])
        #expect(other.status == 200)
        #expect(other.text == "192.0.2.2")
        #expect(try await fetch(server, "/keys", headers: first).status == 200)  // constant routes are free

        gate.open()
        for task in parked {
            #expect(try await task.value.status == 200)
        }
        #expect(await eventually { server.activeRequestCount == 0 })
        #expect(try await fetch(server, "/who", headers: first).text == "192.0.2.1")
    }

    /// A form body over `maxFormBodySize` gets 413 though it is far below `maxBodySize`; other
    /// bodies keep the large limit; a route's own limit replaces both.
    @Test func formAndRouteBodyLimits() async throws {
        let server = try startServer { router in
            router.post("/echo") { request in .text("\(request.body.count)") }
            router.post("/small") { request in .text("\(request.body.count)") }
            router.limitBodySize(100, for: "/small")
        }
        defer { server.shutdown() }
        let form = ["Content-Type": "application/x-www-form-urlencoded"]
        let bytes = Data(repeating: UInt8(ascii: "a"), count: 64 * 1_024 + 1)
        // A body declared too large is answered from its `Content-Length`, before it is read,
        // and the connection closed: only the head is sent, since a client still writing the
        // body when the server closes meets a broken pipe instead of the answer.
        func declared(_ type: String, _ length: Int) -> Int? {
            let head =
                "POST /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: \(type)\r\n"
                + "Content-Length: \(length)\r\n\r\n"
            return RawHTTPClient.status(of: RawHTTPClient.exchange(port: server.port, head))
        }
        #expect(declared("application/x-www-form-urlencoded", bytes.count) == 413)
        let atLimit = bytes.dropLast()
        #expect(try await fetch(server, "/echo", method: "POST", headers: form, body: atLimit).text == "65536")
        let octets = ["Content-Type": "application/octet-stream"]
        #expect(try await fetch(server, "/echo", method: "POST", headers: octets, body: bytes).status == 200)
        #expect(declared("Application/X-WWW-Form-Urlencoded; charset=utf-8", bytes.count) == 413)

        #expect(try await fetch(server, "/small", method: "POST", body: Data(count: 101)).status == 413)
        #expect(try await fetch(server, "/small", method: "POST", body: Data(count: 100)).text == "100")
        // Without Content-Length (chunked), the limit applies to what arrives.
        let chunked =
            "POST /small HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            + "c8\r\n" + String(repeating: "b", count: 200) + "\r\n0\r\n\r\n"
        #expect(RawHTTPClient.exchange(port: server.port, chunked).hasPrefix("HTTP/1.1 413"))
    }
}

/// A TCP connection to the server from a chosen loopback address (Linux routes all of
/// 127.0.0.0/8 to the loopback interface), with timeouts so no test can hang.
final class LoopbackSocket {
    private var socket: Int32

    init(port: UInt16, from source: String, timeoutSeconds: Int = 10) {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        _ = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }

    deinit {
        close()
    }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// One response, headers and a `Content-Length` body, if it starts arriving `within` (nil if
    /// nothing does; "" if the server closed instead); the connection stays open.
    func readResponse(within wait: Duration) -> String? {
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(wait.components.seconds * 1_000 + wait.components.attoseconds / 1_000_000_000_000_000)
        guard poll(&descriptor, 1, milliseconds) > 0 else { return nil }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(socket, &chunk, chunk.count, 0)
            guard count > 0 else { break }
            received.append(contentsOf: chunk[0..<count])
            let text = String(decoding: received, as: UTF8.self)
            guard let end = text.range(of: "\r\n\r\n") else { continue }
            let length =
                text[..<end.lowerBound].split(separator: "\r\n")
                .first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
            if text.utf8.count - text[..<end.upperBound].utf8.count >= length { break }
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// Everything until the server closes (or the timeout).
    func readAll() -> String {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(socket, &chunk, chunk.count, 0)
            guard count > 0 else { break }
            received.append(contentsOf: chunk[0..<count])
        }
        return String(decoding: received, as: UTF8.self)
    }

    func close() {
        guard socket >= 0 else { return }
        Glibc.close(socket)
        socket = -1
    }
}

/// A server whose per-client cap serves `served` connections from one address and keeps
/// `waiting` more waiting, their requests held for `hold`.
private func startCapped(served: Int, waiting: Int, hold: Duration) throws -> HTTPServer {
    var configuration = ServerConfiguration(port: 0, threads: 2, logRequests: false)
    configuration.maxConnectionsPerClient = served
    configuration.maxWaitingConnectionsPerClient = waiting
    configuration.waitingRequestHold = hold
    return try startServer(configuration: configuration)
}

/// A server with one worker and one pending async request allowed, whose `POST /park` waits at
/// `gate`: while one is parked, the next request handed to the workers meets the overload path;
/// `configure` adds the routes a test needs.
private func startQueueOfOne(parkingAt gate: Gate, _ configure: (Router) -> Void) throws -> HTTPServer {
    var configuration = ServerConfiguration(port: 0, threads: 2, logRequests: false, workerThreads: 1)
    configuration.maxPendingAsyncRequests = 1
    return try startServer(configuration: configuration) { router in
        router.postAsync("/park") { _ in
            await gate.wait()
            return .text("parked")
        }
        configure(router)
    }
}
