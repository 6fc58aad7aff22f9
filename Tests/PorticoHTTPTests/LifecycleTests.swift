import Foundation
import PorticoTesting
import Testing

@testable import PorticoHTTP

@Suite struct LifecycleTests {
    private struct Failure: Error {}

    @Test func throwingHandlerGives500AndServerKeepsRunning() async throws {
        let server = try startServer { router in
            router.get("/boom") { _ in throw Failure() }
            router.getAsync("/boom-later") { _ in
                await Task.yield()
                throw Failure()
            }
            router.get("/teapot") { _ in throw HTTPError(418, "short and stout") }
        }
        defer { server.shutdown() }
        for path in ["/boom", "/boom-later"] {
            let reply = try await fetch(server, path)
            #expect(reply.status == 500)
            #expect(reply.text == "Internal Server Error")
        }
        let teapot = try await fetch(server, "/teapot")
        #expect(teapot.status == 418)
        #expect(teapot.text == "short and stout")
        #expect(try await fetch(server, "/healthz").status == 200)
    }

    @Test func slowRequestCompletesDuringShutdown() async throws {
        let gate = Gate()
        let server = try startServer { router in
            router.getAsync("/slow") { _ in
                await gate.wait()
                return .text("finished")
            }
        }
        let slow = Task { try await fetch(server, "/slow") }
        #expect(await eventually { gate.arrivals == 1 })
        let shutdownDone = Counter()
        let shutdown = Task {
            await onThread {
                server.shutdown(timeout: .seconds(60))
                shutdownDone.increment()
            }
        }
        #expect(await eventually { server.isShuttingDown })
        #expect(shutdownDone.value == 0)
        gate.open()
        let reply = try await slow.value
        #expect(reply.status == 200)
        #expect(reply.text == "finished")
        #expect(reply.header("Connection")?.lowercased() == "close")
        await shutdown.value
        #expect(shutdownDone.value == 1)
    }

    @Test func shutdownTimeoutAnswersParkedRequestsWith503() async throws {
        let gate = Gate()
        let server = try startServer { router in
            router.getAsync("/never") { _ in
                await gate.wait()
                return .text("too late")
            }
        }
        let parked = Task { try await fetch(server, "/never") }
        #expect(await eventually { gate.arrivals == 1 })
        // Shutdown answers 503, stops the daemon, then waits for the handler it cut off; the
        // handler finishing after the stop must not touch the freed connection.
        let stopping = Task { await onThread { server.shutdown(timeout: .milliseconds(100)) } }
        #expect(try await parked.value.status == 503)
        gate.open()
        await stopping.value
    }

    @Test func startTwiceAndShutdownTwiceAreSafe() throws {
        let server = try startServer()
        #expect(throws: HTTPServerError.alreadyStarted) { try server.start() }
        server.shutdown()
        server.shutdown()
        #expect(throws: HTTPServerError.alreadyStarted) { try server.start() }
    }

    @Test func busyPortAndBadHostAreReported() throws {
        let first = try startServer()
        defer { first.shutdown() }
        let router = Router()
        let busy = HTTPServer(configuration: ServerConfiguration(port: first.port, logRequests: false), router: router)
        #expect(throws: HTTPServerError.self) { try busy.start() }
        let badHost = HTTPServer(configuration: ServerConfiguration(host: "not an address", port: 0), router: Router())
        #expect(throws: HTTPServerError.invalidHost("not an address")) { try badHost.start() }
    }

    @Test func listensOnIPv6Loopback() async throws {
        let router = Router()
        router.get("/healthz") { request in .text(request.remoteAddress) }
        let server = HTTPServer(
            configuration: ServerConfiguration(host: "::1", port: 0, threads: 1, logRequests: false), router: router)
        try server.start()
        defer { server.shutdown() }
        // FoundationNetworking rejects bracketed IPv6 hosts, so this one goes over a raw socket.
        let reply = RawHTTPClient.exchange(
            port: server.port, Array("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8),
            ipv6: true)
        #expect(RawHTTPClient.status(of: reply) == 200)
        #expect(reply.hasSuffix("\r\n\r\n::1"))
    }
}
