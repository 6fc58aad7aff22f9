import Dispatch
import Foundation
import PorticoHTTP
import PorticoTesting
import Testing

@testable import PorticoServer

/// A page request that finds the worker queue full gets the "very busy" page in the person's
/// language (a browser asks for HTML), any other client the plain 503; both with `Retry-After`.
@Suite struct OverloadPageTests {
    /// A server whose only worker place is taken by a handler parked until `release` is signalled.
    private func fullServer(
        release: DispatchSemaphore, parked: DispatchSemaphore, environment: PageEnvironment
    ) throws -> HTTPServer {
        let router = Router()
        router.getAsync("/park") { _ in
            parked.signal()
            release.wait()
            return .text("parked")
        }
        router.getAsync("/page") { _ in .text("page") }
        OverloadPage.register(on: router, environment: environment)
        var configuration = ServerConfiguration(port: 0, threads: 2, logRequests: false, workerThreads: 1)
        configuration.maxPendingAsyncRequests = 1
        let server = HTTPServer(configuration: configuration, router: router)
        try server.start()
        return server
    }

    private func get(_ server: HTTPServer, _ headers: String) -> String {
        RawHTTPClient.exchange(
            port: server.port, "GET /page HTTP/1.1\r\nHost: 127.0.0.1\r\n\(headers)Connection: close\r\n\r\n")
    }

    @Test func aBrowserGetsTheVeryBusyPageInItsLanguage() async throws {
        try await ProviderHarness.with { harness in
            try check(environment: PageEnvironment(harness.provider.context))
        }
    }

    private func check(environment: PageEnvironment) throws {
        let release = DispatchSemaphore(value: 0)
        let parked = DispatchSemaphore(value: 0)
        let server = try fullServer(release: release, parked: parked, environment: environment)
        defer { server.shutdown() }
        Thread.detachNewThread {
            _ = RawHTTPClient.exchange(
                port: server.port, "GET /park HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        }
        #expect(parked.wait(timeout: .now() + 30) == .success)
        defer { release.signal() }

        let html = "Accept: text/html,application/xhtml+xml,*/*;q=0.8\r\n"
        let english = get(server, html)
        #expect(RawHTTPClient.status(of: english) == 503)
        #expect(english.contains("Retry-After: 1"))
        #expect(english.contains("text/html"))
        #expect(english.contains("is very busy"))
        #expect(english.contains("could not open this page yet"))

        let chinese = get(server, html + "Accept-Language: zh-CN,zh;q=0.9\r\n")
        #expect(RawHTTPClient.status(of: chinese) == 503)
        #expect(chinese.contains("当前非常繁忙"))
        #expect(chinese.contains("lang=\"zh"))

        let machine = get(server, "Accept: application/json\r\n")
        #expect(RawHTTPClient.status(of: machine) == 503)
        #expect(machine.contains("Retry-After: 1"))
        #expect(machine.hasSuffix("Server is busy; try again shortly"))
    }
}
