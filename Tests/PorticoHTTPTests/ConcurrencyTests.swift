import Foundation
import PorticoTesting
import Synchronization
import Testing

@testable import PorticoHTTP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct ConcurrencyTests {
    @Test func twoHundredConcurrentRequestsEachGetTheirOwnAnswer() async throws {
        // 200 connections from one address would meet the per-client cap (128), and how
        // URLSession copes with a refused connection is not what this test is about.
        var configuration = ServerConfiguration(port: 0, threads: 2, logRequests: false)
        configuration.maxConnectionsPerClient = 0
        let server = try startServer(configuration: configuration) { router in
            router.get("/square/:n") { request in
                let number = Int(request.pathParameters["n"] ?? "") ?? -1
                return .text("\(number * number)")
            }
            router.postAsync("/echo/:n") { request in
                await Task.yield()
                return .text("\(request.pathParameters["n"] ?? "?"):\(String(decoding: request.body, as: UTF8.self))")
            }
        }
        defer { server.shutdown() }
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<200 {
                group.addTask {
                    if index.isMultiple(of: 2) {
                        return try await fetch(server, "/square/\(index)").text == "\(index * index)"
                    }
                    let reply = try await fetch(
                        server, "/echo/\(index)", method: "POST", body: Data("body\(index)".utf8))
                    return reply.text == "\(index):body\(index)"
                }
            }
            var correct = 0
            for try await isCorrect in group where isCorrect {
                correct += 1
            }
            #expect(correct == 200)
        }
        #expect(await eventually { server.activeRequestCount == 0 })
    }

    /// Proves without timing that async handlers do not occupy the epoll threads: 20 requests
    /// park on a closed gate while `/healthz` keeps answering; then the gate opens.
    ///
    /// Every client here is a plain socket on a thread of its own. Through URLSession (one
    /// queue for the whole test process) the parked requests had its 30-second idle timeout:
    /// on a loaded machine, with the other tests holding the cooperative threads, the checks
    /// between parking and opening took longer than that, and the parked requests timed out
    /// (the test then failed, or hung in URLSession). How long the steps take is not what this
    /// test is about; the sockets' own timeout only guards against a hang.
    @Test func parkedAsyncRequestsDoNotBlockOthers() async throws {
        let gate = Gate()
        let finished = Counter()
        let server = try startServer { router in
            router.getAsync("/slow/:n") { request in
                await gate.wait()
                return .text("slow \(request.pathParameters["n"] ?? "?")")
            }
        }
        defer { server.shutdown() }
        let port = server.port
        let parked = (0..<20).map { index in
            Task {
                await onThread { () -> Bool in
                    let reply = RawHTTPClient.exchange(
                        port: port, "GET /slow/\(index) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                        timeoutSeconds: 600)
                    finished.increment()
                    return RawHTTPClient.status(of: reply) == 200 && reply.hasSuffix("slow \(index)")
                }
            }
        }
        #expect(await eventually { gate.arrivals == 20 })
        #expect(server.activeRequestCount == 20)
        for _ in 0..<10 {
            let reply = await onThread {
                RawHTTPClient.exchange(
                    port: port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            }
            #expect(RawHTTPClient.status(of: reply) == 200)
        }
        #expect(finished.value == 0)
        gate.open()
        var correct = 0
        for request in parked where await request.value {
            correct += 1
        }
        #expect(correct == 20)
        #expect(await eventually { server.activeRequestCount == 0 })
    }

    /// Async handlers run on the server's own worker threads: with every thread of Swift's
    /// cooperative pool blocked (as blocking code elsewhere in a process can do), a request to
    /// an async handler that suspends and resumes still completes.
    @Test func asyncHandlersDoNotNeedTheCooperativePool() throws {
        let server = try startServer { router in
            router.getAsync("/async") { _ in
                await Task.yield()
                return .text("done")
            }
        }
        defer { server.shutdown() }
        let release = DispatchSemaphore(value: 0)
        let width = ProcessInfo.processInfo.activeProcessorCount
        for _ in 0..<width {
            Task.detached { blockUntilSignalled(release) }
        }
        defer { for _ in 0..<width { release.signal() } }
        let reply = RawHTTPClient.exchange(
            port: server.port, "GET /async HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
            timeoutSeconds: 10)
        #expect(RawHTTPClient.status(of: reply) == 200)
        #expect(reply.hasSuffix("done"))
    }

    /// An async route with a first step: what the step answers is answered by it, on the epoll
    /// thread, without the handler; what it hands over (nil) goes to the async handler.
    @Test func aFirstStepAnswersWhatItCanAndHandsTheRestToTheHandler() async throws {
        let handled = Atomic<Int>(0)
        let server = try startServer { router in
            router.addAsync(
                .post, "/maybe",
                immediate: { request in
                    request.query["fast"] == nil ? nil : .text("first on \(currentThreadName())")
                },
                { _ in
                    handled.add(1, ordering: .relaxed)
                    return .text("handler")
                })
        }
        defer { server.shutdown() }
        let fast = try await fetch(server, "/maybe?fast=1", method: "POST")
        #expect(fast.status == 200)
        #expect(fast.text.hasPrefix("first on "))
        #expect(!fast.text.contains("portico-work"))
        #expect(handled.load(ordering: .relaxed) == 0)
        let slow = try await fetch(server, "/maybe", method: "POST")
        #expect(slow.status == 200)
        #expect(slow.text == "handler")
        #expect(handled.load(ordering: .relaxed) == 1)
    }
}

/// The name of the thread this runs on (a synchronous function, callable from an async handler).
private func currentThreadName() -> String {
    Thread.current.name ?? ""
}

/// Holds the calling thread until `semaphore` is signalled (a stand-in for blocking code).
private func blockUntilSignalled(_ semaphore: DispatchSemaphore) {
    semaphore.wait()
}
