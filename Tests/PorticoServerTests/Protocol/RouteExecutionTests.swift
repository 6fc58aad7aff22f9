import Foundation
import PorticoHTTP
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// The one place that decides where store-touching handlers run.
@Suite struct RouteExecutionTests {
    /// The name of the thread that answered, as the handler saw it. libmicrohttpd names its
    /// threads `MHD-…`; the worker pool's threads are not libmicrohttpd's.
    private static func threadName(placement: RouteExecution.Placement) throws -> String {
        let router = Router()
        RouteExecution(placement: placement).post("/where", on: router) { _ in .text(currentThreadName()) }
        let server = HTTPServer(
            configuration: ServerConfiguration(port: 0, threads: 1, logRequests: false), router: router)
        try server.start()
        defer { server.shutdown() }
        let reply = try RawHTTPClient.send(
            port: server.port, method: "POST", path: "/where", headers: [:], body: nil)
        #expect(reply.status == 200)
        return reply.text
    }

    @Test func handlersRunWhereTheirPlacementSays() throws {
        let epoll = try Self.threadName(placement: .epollThread)
        #expect(epoll.hasPrefix("MHD"), "\(epoll)")
        let worker = try Self.threadName(placement: .workerPool)
        #expect(!worker.hasPrefix("MHD"), "\(worker)")
    }

    @Test func anEmbeddedStoreKeepsItsHandlersOnTheEpollThreads() async throws {
        try await ProviderHarness.with { harness in
            #expect(!harness.store.isRemote)
            #expect(RouteExecution(for: harness.store).placement == .epollThread)
        }
    }
}

/// The name of the thread running the caller.
private func currentThreadName() -> String {
    Thread.current.name ?? ""
}
