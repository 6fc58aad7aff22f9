import Foundation
import PorticoTesting
import Synchronization
import Testing

@testable import PorticoHTTP

/// Stopping a server while its epoll threads are busy must never abort the process.
///
/// libmicrohttpd 0.9.75's `MHD_quiesce_daemon` removes the listening socket from each pool
/// thread's epoll set from the caller's thread, while the pool thread may remove it too (it
/// sees `was_quiesced`); the loser's `epoll_ctl` fails and the library calls `MHD_PANIC`,
/// which aborts the whole process ("Failed to remove listen FD from epoll set"). A test
/// process that stops many providers met it in CI. This suite stops many loaded servers in a
/// row, so that a shutdown path touching a pool thread's epoll set from outside is caught.
@Suite struct ShutdownLoopTests {
    /// Clients that hammer one port with short requests on their own threads until stopped,
    /// counting the answers by kind.
    final class Hammer: Sendable {
        private let stopped = Atomic<Bool>(false)
        private let answered = Atomic<Int>(0)
        private let unexpected = Atomic<Int>(0)
        private let finished = DispatchGroup()

        /// Requests answered 200.
        var answeredCount: Int { answered.load(ordering: .acquiring) }
        /// Answers that were neither 200 nor a connection closed or refused unanswered.
        var unexpectedCount: Int { unexpected.load(ordering: .acquiring) }

        init(port: UInt16, clients: Int) {
            for _ in 0..<clients {
                finished.enter()
                Thread.detachNewThread { [self] in
                    defer { finished.leave() }
                    let request = Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
                    while !stopped.load(ordering: .acquiring) {
                        let reply = RawHTTPClient.exchange(port: port, request, timeoutSeconds: 10)
                        switch RawHTTPClient.status(of: reply) {
                        case 200: answered.add(1, ordering: .relaxed)
                        case nil where reply.isEmpty: break
                        // Draining may answer 503; anything else is a bug.
                        case 503: break
                        default: unexpected.add(1, ordering: .relaxed)
                        }
                    }
                }
            }
        }

        /// Stops the clients and waits (bounded) for their threads.
        func stop() -> Bool {
            stopped.store(true, ordering: .releasing)
            return finished.wait(timeout: .now() + 30) == .success
        }
    }

    /// Many cycles of start, load from several clients, shutdown under that load: the process
    /// survives every one, each server answered while it ran, and nothing else went wrong.
    @Test func shutdownUnderLoadNeverAborts() async throws {
        // Eight pool threads under eight clients met the abort within 400 cycles in 5 runs of 6
        // with the quiescing shutdown (about 12 s here).
        for cycle in 0..<400 {
            let server = try startServer(
                configuration: ServerConfiguration(port: 0, threads: 8, logRequests: false))
            let hammer = Hammer(port: server.port, clients: 8)
            let served = await eventually { hammer.answeredCount >= 20 }
            await onThread { server.shutdown(timeout: .seconds(5)) }
            #expect(hammer.stop())
            #expect(served, "cycle \(cycle): the server never answered")
            #expect(hammer.unexpectedCount == 0, "cycle \(cycle)")
        }
    }
}
