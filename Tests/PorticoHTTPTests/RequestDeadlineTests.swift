import Foundation
import PorticoTesting
import Synchronization
import Testing

@testable import PorticoHTTP

/// A client must send its whole request within `requestDeadline`, however it spaces its bytes:
/// libmicrohttpd's idle timeout restarts with each byte, so a slowloris client would otherwise
/// hold its connection for as long as it likes.
@Suite struct RequestDeadlineTests {
    /// A client that sends `pieces` one at a time, `interval` apart, on its own thread, and
    /// says whether it got through all of them before the server cut it off.
    final class Trickle: Sendable {
        private let done = Atomic<Bool>(false)
        private let finished = DispatchSemaphore(value: 0)

        /// Whether every piece was sent (the server never closed the connection meanwhile).
        var sentEverything: Bool { done.load(ordering: .acquiring) }

        init(_ connection: RawConnection, pieces: [String], interval: Duration) {
            nonisolated(unsafe) let connection = connection
            Thread.detachNewThread { [self] in
                defer { finished.signal() }
                for (index, piece) in pieces.enumerated() {
                    if index > 0 { Thread.sleep(forTimeInterval: Self.seconds(interval)) }
                    guard connection.send(piece) else { return }
                }
                done.store(true, ordering: .releasing)
            }
        }

        func wait() -> Bool { finished.wait(timeout: .now() + 60) == .success }

        /// `duration` in seconds, whole seconds and the fraction both.
        static func seconds(_ duration: Duration) -> TimeInterval {
            let (seconds, attoseconds) = duration.components
            return Double(seconds) + Double(attoseconds) / 1e18
        }
    }

    /// The trickle's pause counts whole seconds too (it once slept only the fraction).
    @Test func theTricklesIntervalIsTheWholeDuration() {
        #expect(Trickle.seconds(.milliseconds(1500)) == 1.5)
        #expect(Trickle.seconds(.seconds(2)) == 2)
        #expect(Trickle.seconds(.milliseconds(100)) == 0.1)
    }

    private func deadlineServer(deadline: Duration = .seconds(1)) throws -> HTTPServer {
        var configuration = ServerConfiguration(port: 0, threads: 2, idleTimeout: .seconds(30), logRequests: false)
        configuration.requestDeadline = deadline
        return try startServer(configuration: configuration) { router in
            router.post("/echo") { request in .text("\(request.body.count) bytes") }
        }
    }

    /// Headers sent a few bytes every 100 ms (each well inside the idle timeout) for 8 s: the
    /// connection is closed without an answer, long before the client is done, and others
    /// are still served.
    @Test func tricklingHeadersAreCutOff() async throws {
        let server = try deadlineServer()
        defer { server.shutdown() }
        let connection = RawConnection(port: server.port, timeoutSeconds: 30)
        let header =
            "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + String(repeating: "X-Slow: 1\r\n", count: 20) + "\r\n"
        let pieces = stride(from: 0, to: header.count, by: 3).map { offset -> String in
            let start = header.index(header.startIndex, offsetBy: offset)
            return String(
                header[start..<(header.index(start, offsetBy: 3, limitedBy: header.endIndex) ?? header.endIndex)])
        }
        let trickle = Trickle(connection, pieces: pieces, interval: .milliseconds(100))
        let reply = connection.readAll()
        #expect(!trickle.sentEverything, "the server waited for the whole trickle")
        #expect(RawHTTPClient.status(of: reply) == nil, "\(reply)")
        #expect(trickle.wait())
        let healthy = RawHTTPClient.exchange(
            port: server.port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        #expect(RawHTTPClient.status(of: healthy) == 200)
    }

    /// Whole headers, then the body a byte every 100 ms: cut off the same way.
    @Test func tricklingBodyIsCutOff() async throws {
        let server = try deadlineServer()
        defer { server.shutdown() }
        let connection = RawConnection(port: server.port, timeoutSeconds: 30)
        connection.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 80\r\n\r\n")
        let trickle = Trickle(connection, pieces: Array(repeating: "a", count: 80), interval: .milliseconds(100))
        let reply = connection.readAll()
        #expect(!trickle.sentEverything, "the server waited for the whole body")
        #expect(RawHTTPClient.status(of: reply) == nil, "\(reply)")
        #expect(trickle.wait())
    }

    /// A kept-alive connection's next request has its own deadline: one prompt request, then a
    /// second trickled, is cut off too.
    @Test func tricklingSecondRequestOnAKeptAliveConnectionIsCutOff() async throws {
        let server = try deadlineServer()
        defer { server.shutdown() }
        let connection = RawConnection(port: server.port, timeoutSeconds: 30)
        connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let trickle = Trickle(
            connection,
            pieces: ["GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"] + Array(repeating: "X: 1\r\n", count: 80) + [
                "\r\n"
            ],
            interval: .milliseconds(100))
        let replies = connection.readAll()
        #expect(!trickle.sentEverything, "the server waited for the whole second request")
        #expect(replies.components(separatedBy: "HTTP/1.1 200").count - 1 == 1, "\(replies)")
        #expect(trickle.wait())
    }

    /// The deadline is per request: a kept-alive connection whose requests each arrive at once
    /// is served across more than one deadline's time, and a prompt request is never cut.
    ///
    /// The pauses between the requests run on a thread of their own (``Trickle``), like the
    /// other trickles here: on Swift's cooperative pool (`Task.sleep`) a pause lasts until a
    /// cooperative thread is free, and in a parallel run the other tests hold those threads in
    /// blocking socket reads for seconds, so on a loaded machine one pause outlasted the whole
    /// deadline and the server rightly cut the connection.
    @Test func promptRequestsOnOneConnectionAreServedPastTheDeadline() async throws {
        // 5 s, a request every half second: each waits a tenth of the deadline (room for a busy
        // machine), all twelve together take longer than it.
        let server = try deadlineServer(deadline: .seconds(5))
        defer { server.shutdown() }
        let connection = RawConnection(port: server.port, timeoutSeconds: 30)
        let echo = "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\nhi"
        let last = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        let trickle = Trickle(
            connection, pieces: Array(repeating: echo, count: 12) + [last], interval: .milliseconds(500))
        // Read on a thread of its own too, so these six seconds hold no cooperative thread.
        nonisolated(unsafe) let reader = connection
        let replies = await onThread { reader.readAll() }
        #expect(trickle.wait())
        #expect(trickle.sentEverything)
        #expect(replies.components(separatedBy: "HTTP/1.1 200").count - 1 == 13, "\(replies)")
    }
}
