import Foundation
import PorticoHTTP
import Synchronization

/// A client's backend for back-channel logout tests: a real ``HTTPServer`` on a loopback port
/// that records every `logout_token` POSTed to ``path`` and answers 200 (or the status a test
/// sets), so that tests watch the provider deliver over real HTTP.
///
/// It can be stopped and started again on the same port, to play a backend that is down for a
/// while and comes back.
public final class LogoutReceiver: Sendable {
    /// Where logout tokens are POSTed.
    public static let path = "/backchannel-logout"

    private let server: Mutex<HTTPServer?>
    private let state = State()
    /// The port it listens (or listened, or will listen) on.
    public let port: UInt16

    /// Starts listening on `port` (0: an ephemeral one); with `running: false`, only reserves a
    /// port (by binding it once) for a backend that starts later.
    public init(port: UInt16 = 0, running: Bool = true) throws {
        let first = Self.makeServer(port: port, state: state)
        try first.start()
        self.port = first.port
        if running {
            server = Mutex(first)
        } else {
            first.shutdown()
            server = Mutex(nil)
        }
    }

    deinit {
        stop()
    }

    /// The back-channel logout URI to register for the client.
    public var uri: String { "http://127.0.0.1:\(port)\(Self.path)" }

    /// Every `logout_token` received so far, in order (answered with 2xx or not).
    public var tokens: [String] { state.received.withLock { $0 } }

    /// Answers later requests with `status` (a backend failing without being down).
    public func answer(with status: HTTPStatus) {
        state.answer.withLock { $0 = status }
    }

    /// Starts listening again on ``port`` if it is not.
    public func start() throws {
        try server.withLock { server in
            guard server == nil else { return }
            let restarted = Self.makeServer(port: port, state: state)
            try restarted.start()
            server = restarted
        }
    }

    /// Stops listening: connections are refused until ``start()``.
    public func stop() {
        let running = server.withLock { server -> HTTPServer? in
            defer { server = nil }
            return server
        }
        running?.shutdown(timeout: .seconds(2))
    }

    /// Waits until `count` tokens have arrived (or `timeout` passes) and returns them all.
    public func tokens(atLeast count: Int, timeout: Duration = .seconds(30)) async throws -> [String] {
        try await waitUntil("\(count) logout tokens at \(uri)", timeout: timeout) { self.tokens.count >= count }
        return tokens
    }

    /// What the routes of every server this receiver starts share.
    private final class State: Sendable {
        let received = Mutex<[String]>([])
        let answer = Mutex<HTTPStatus>(.ok)
    }

    private static func makeServer(port: UInt16, state: State) -> HTTPServer {
        let router = Router()
        router.post(path) { request in
            let form = try request.form()
            if let token = form["logout_token"] { state.received.withLock { $0.append(token) } }
            let status = state.answer.withLock { $0 }
            var response = Response.text(status == .ok ? "" : "unavailable", status: status)
            response.headers["Cache-Control"] = "no-store"
            return response
        }
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = port
        configuration.threads = 1
        configuration.logRequests = false
        return HTTPServer(configuration: configuration, router: router)
    }
}

/// Waits until `condition` holds, checking every 20 ms, and fails (naming `what`) if it does
/// not within `timeout`: how tests wait for background work without sleeping a fixed time.
public func waitUntil(
    _ what: String, timeout: Duration = .seconds(30), _ condition: @Sendable () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw HarnessFailure("timed out waiting for \(what)") }
        try await Task.sleep(for: .milliseconds(20))
    }
}
