import Foundation
import PorticoTesting
import Testing

@testable import PorticoHTTP

/// Bad and oversized input over raw sockets: after each, `/healthz` must still answer and no
/// request state may be left behind.
@Suite struct LimitsTests {
    private func makeServer(maxBodySize: Int = 1 << 20) throws -> HTTPServer {
        try startServer(
            configuration: ServerConfiguration(port: 0, threads: 2, maxBodySize: maxBodySize, logRequests: false)
        ) { router in
            router.post("/upload") { request in .text("got \(request.body.count)") }
        }
    }

    private func expectHealthy(_ server: HTTPServer) async throws {
        #expect(try await fetch(server, "/healthz").text == #"{"status":"ok"}"#)
        #expect(await eventually { server.activeRequestCount == 0 })
    }

    @Test func garbageRequestLineIsRejected() async throws {
        let server = try makeServer()
        defer { server.shutdown() }
        // libmicrohttpd 0.9.75 closes the connection on a request line it cannot parse (no
        // response) and answers 400 to a malformed one it can split.
        let garbage = RawHTTPClient.exchange(port: server.port, "GARBAGE\r\n\r\n")
        #expect(garbage.isEmpty || RawHTTPClient.status(of: garbage) == 400)
        let binary = RawHTTPClient.exchange(port: server.port, [0x16, 0x03, 0x01, 0x00, 0xFF, 0x0D, 0x0A, 0x0D, 0x0A])
        #expect(binary.isEmpty || RawHTTPClient.status(of: binary) == 400)
        let noHost = RawHTTPClient.exchange(port: server.port, "GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n")
        #expect(RawHTTPClient.status(of: noHost) == 400)
        try await expectHealthy(server)
    }

    @Test func hugeHeaderIs431AndLongRequestLineIs414() async throws {
        let server = try makeServer()
        defer { server.shutdown() }
        let header = "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 100_000))\r\n\r\n"
        #expect(RawHTTPClient.status(of: RawHTTPClient.exchange(port: server.port, header)) == 431)
        let line = "GET /\(String(repeating: "a", count: 100_000)) HTTP/1.1\r\nHost: x\r\n\r\n"
        #expect(RawHTTPClient.status(of: RawHTTPClient.exchange(port: server.port, line)) == 414)
        try await expectHealthy(server)
    }

    @Test func badPercentEncodingIs400() async throws {
        let server = try makeServer()
        defer { server.shutdown() }
        let reply = RawHTTPClient.exchange(
            port: server.port, "GET /healthz?x=%%41 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(RawHTTPClient.status(of: reply) == 400)
        #expect(reply.hasSuffix("Invalid percent-encoding"))
        try await expectHealthy(server)
    }

    @Test func declaredOversizedBodyIs413BeforeReading() async throws {
        let server = try makeServer(maxBodySize: 1_000)
        defer { server.shutdown() }
        // Only the head is sent: the answer must come from Content-Length alone.
        let reply = RawHTTPClient.exchange(
            port: server.port, "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 5000000\r\n\r\n")
        #expect(RawHTTPClient.status(of: reply) == 413)
        let viaSession = try await fetch(server, "/upload", method: "POST", body: Data(count: 1_001))
        #expect(viaSession.status == 413)
        #expect(try await fetch(server, "/upload", method: "POST", body: Data(count: 1_000)).text == "got 1000")
        try await expectHealthy(server)
    }

    @Test func streamedOversizedBodyIs413() async throws {
        let server = try makeServer(maxBodySize: 1_000)
        defer { server.shutdown() }
        let chunk = String(repeating: "z", count: 600)
        let request =
            "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            + "258\r\n\(chunk)\r\n258\r\n\(chunk)\r\n0\r\n\r\n"
        #expect(RawHTTPClient.status(of: RawHTTPClient.exchange(port: server.port, request)) == 413)
        let small =
            "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            + "258\r\n\(chunk)\r\n0\r\n\r\n"
        #expect(RawHTTPClient.exchange(port: server.port, small).hasSuffix("got 600"))
        try await expectHealthy(server)
    }

    @Test func defaultLimitIsOneMebibyte() async throws {
        let server = try makeServer()
        defer { server.shutdown() }
        // Not a form (URLSession labels a bare POST body as one, which has a 64 KiB limit).
        let octets = ["Content-Type": "application/octet-stream"]
        let largest = try await fetch(server, "/upload", method: "POST", headers: octets, body: Data(count: 1 << 20))
        #expect(largest.text == "got 1048576")
        // One byte more is refused on its declared length, before any of the body is read. Sent
        // raw, headers only: a client still sending the body when the 413 and the close come
        // may see its send fail ("broken pipe") instead of the answer, as curl did now and then.
        let over = RawHTTPClient.exchange(
            port: server.port,
            """
            POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\n\
            Content-Length: \((1 << 20) + 1)\r\n\r\n
            """)
        #expect(RawHTTPClient.status(of: over) == 413)
        try await expectHealthy(server)
    }

    @Test func clientDisconnectingMidBodyLeavesNothingBehind() async throws {
        // libmicrohttpd 0.9.75 notices a client that hung up half way through a body only when
        // the idle timeout fires, so a short one lets the test see the request state freed.
        let server = try startServer(
            configuration: ServerConfiguration(port: 0, threads: 2, idleTimeout: .seconds(1), logRequests: false)
        ) { router in
            router.post("/upload") { request in .text("got \(request.body.count)") }
        }
        defer { server.shutdown() }
        for _ in 0..<5 {
            _ = RawHTTPClient.exchange(
                port: server.port,
                Array("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n0123456789".utf8),
                closeAfterSending: true)
        }
        try await expectHealthy(server)
    }

    @Test func idleConnectionIsClosed() async throws {
        let server = try startServer(
            configuration: ServerConfiguration(port: 0, threads: 1, idleTimeout: .seconds(1), logRequests: false))
        defer { server.shutdown() }
        // A partial request then silence: the server must hang up by itself (the client's
        // receive timeout is far longer, so an empty read here means the server closed).
        let reply = RawHTTPClient.exchange(
            port: server.port, "GET /healthz HTTP/1.1\r\nHost: x\r\n", timeoutSeconds: 30)
        #expect(RawHTTPClient.status(of: reply) == nil)
        try await expectHealthy(server)
    }

    @Test func connectionLimitRefusesExtraConnections() async throws {
        let server = try startServer(
            configuration: ServerConfiguration(port: 0, threads: 1, maxConnections: 2, logRequests: false))
        defer { server.shutdown() }
        // Hold two keep-alive connections open with partial requests, then a third is refused.
        let holders = (0..<2).map { _ in RawConnection(port: server.port) }
        for holder in holders {
            holder.send("GET /healthz HTTP/1.1\r\nHost: x\r\n")
        }
        #expect(await eventually { server.activeRequestCount == 2 })
        let refused = RawHTTPClient.exchange(
            port: server.port, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", timeoutSeconds: 5)
        #expect(refused.isEmpty)
        for holder in holders {
            holder.send("Connection: close\r\n\r\n")
            #expect(RawHTTPClient.status(of: holder.readAll()) == 200)
        }
        try await expectHealthy(server)
    }
}
