import Foundation
import PorticoTesting
import Synchronization
import Testing

@testable import PorticoHTTP

/// Shutdown leaves nothing running that could touch what the caller tears down next.
@Suite struct ShutdownTests {
    /// A flag an async handler sets when it really ends.
    final class Finished: Sendable {
        private let flag = Atomic<Bool>(false)

        var isSet: Bool { flag.load(ordering: .acquiring) }

        func set() { flag.store(true, ordering: .releasing) }
    }

    /// An async handler cut off by the shutdown timeout (its client got 503) still runs; the
    /// caller closes the store right after `shutdown` returns, and the process exits after
    /// that, so `shutdown` must wait for the handler to end.
    @Test func shutdownWaitsForHandlersItAnswered503() async throws {
        let finished = Finished()
        let started = DispatchSemaphore(value: 0)
        let server = try startServer { router in
            router.postAsync("/slow") { _ in
                started.signal()
                try? await Task.sleep(for: .seconds(1))
                finished.set()
                return .text("done")
            }
        }
        defer { server.shutdown() }
        let socket = RawConnection(port: server.port)
        socket.send("POST /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n")
        #expect(started.wait(timeout: .now() + 10) == .success)

        server.shutdown(timeout: .milliseconds(50))
        #expect(finished.isSet)
        #expect(socket.readAll().hasPrefix("HTTP/1.1 503"))
    }

    /// The worker threads have exited when `shutdown` returns (none is left to race the
    /// process's exit); later async work still runs, on a thread of its own.
    @Test func workerPoolStopJoinsItsThreads() async throws {
        let pool = WorkerPool(threadCount: 3, name: "portico-test-worker")
        let ran = Finished()
        await Task(executorPreference: pool) { ran.set() }.value
        #expect(pool.stop(timeout: .seconds(10)))
        #expect(ran.isSet)
        let late = await Task(executorPreference: pool) { 42 }.value
        #expect(late == 42)
    }
}
