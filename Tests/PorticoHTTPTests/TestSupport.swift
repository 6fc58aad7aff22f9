import Foundation
import PorticoHTTP
import PorticoTesting
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Starts a server on an ephemeral loopback port with the routes `configure` adds, plus
/// `/healthz`, which every test uses to prove the server still answers.
func startServer(
    configuration: ServerConfiguration = ServerConfiguration(port: 0, threads: 2, logRequests: false),
    _ configure: (Router) -> Void = { _ in }
) throws -> HTTPServer {
    let router = Router()
    router.get("/healthz") { _ in .json(raw: #"{"status":"ok"}"#) }
    configure(router)
    var configuration = configuration
    configuration.port = 0
    let server = HTTPServer(configuration: configuration, router: router)
    try server.start()
    return server
}

/// A URLSession that allows many parallel connections (Linux defaults to 6 per host, which
/// would queue requests behind parked ones) and keeps no cookies of its own.
let testSession: URLSession = {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = 512
    configuration.timeoutIntervalForRequest = 30
    configuration.httpShouldSetCookies = false
    configuration.httpCookieAcceptPolicy = .never
    configuration.httpCookieStorage = nil
    configuration.urlCache = nil
    return URLSession(configuration: configuration)
}()

/// Sends one request with URLSession and collects the answer.
func fetch(
    _ server: HTTPServer, _ pathAndQuery: String, method: String = "GET", headers: [String: String] = [:],
    body: Data? = nil, session: URLSession = testSession
) async throws -> TestReply {
    let url = try #require(URL(string: "http://127.0.0.1:\(server.port)\(pathAndQuery)"))
    var request = URLRequest(url: url)
    request.httpMethod = method
    request.httpBody = body
    for (name, value) in headers {
        request.setValue(value, forHTTPHeaderField: name)
    }
    let (data, response) = try await session.data(for: request)
    return try TestReply(response, data: data)
}

/// Polls `condition` until it holds or `timeout` passes; a bounded wait, never a timing assertion.
func eventually(timeout: Duration = .seconds(20), _ condition: @Sendable () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while clock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}

/// Runs blocking work (like `HTTPServer.shutdown`) on its own thread so it never occupies the
/// cooperative pool that async handlers need.
func onThread<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(returning: work())
        }
    }
}

/// A gate that async handlers wait on until the test opens it, counting who arrived.
final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var arrivals = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    var arrivals: Int { state.withLock { $0.arrivals } }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let passes = state.withLock { state in
                state.arrivals += 1
                if state.isOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if passes { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters {
            waiter.resume()
        }
    }
}

/// A counter that escaping closures and tasks can share (an `Atomic` itself cannot be captured).
final class Counter: Sendable {
    private let count = Atomic<Int>(0)

    var value: Int { count.load(ordering: .acquiring) }

    func increment() {
        count.add(1, ordering: .acquiringAndReleasing)
    }
}
