import Foundation
import Testing

@testable import PorticoKit

/// Cancelling requests in flight: the SDK cancels its own requests whenever a refresh or a
/// revocation overruns its deadline, so a cancelled request must end the wait at once and never
/// hang or crash the app. (`URLSession.data(for:)` on Linux did both, with this very pattern.)
@Suite struct HTTPCancellationTests {
    @Test func cancellingManyRequestsInFlightEndsEveryWait() async throws {
        // Refused connections fail while the cancels arrive: the race that hung `data(for:)`
        // (three runs in four of this test, before the fix).
        let refused = URL(string: "http://127.0.0.1:\(try closedPort())/token")!
        let client = HTTPClient(timeout: 30)
        for _ in 0..<80 {
            let outcomes = await withTaskGroup(of: AuthorizationError.Code?.self) { group in
                for _ in 0..<100 {
                    group.addTask {
                        do {
                            _ = try await client.postForm(refused, [("grant_type", "refresh_token")])
                            return nil
                        } catch { return (error as? AuthorizationError)?.code }
                    }
                }
                try? await Task.sleep(for: .nanoseconds(100))
                group.cancelAll()
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.count == 100)
            // Each ends as cancelled, or as refused when the refusal won the race.
            #expect(outcomes.allSatisfy { $0 == .cancelled || $0 == .network })
        }
    }

    @Test func aCancelledRequestEndsAtOnceAgainstASilentServer() async throws {
        let silent = try SilentListener()
        defer { silent.close() }
        let client = HTTPClient(timeout: 120)
        let started = ContinuousClock.now
        let request = Task {
            try await client.get(URL(string: "http://127.0.0.1:\(silent.port)/userinfo")!)
        }
        try await Task.sleep(for: .milliseconds(50))
        request.cancel()
        let error = await #expect(throws: AuthorizationError.self) { try await request.value }
        #expect(error?.code == .cancelled)
        // Well before the request's own timeout: the wait ended with the cancel, not the socket.
        #expect(ContinuousClock.now - started < .seconds(60))
    }

    /// A loopback port nothing listens on: bound, then closed.
    private func closedPort() throws -> Int {
        let listener = try SilentListener()
        let port = listener.port
        listener.close()
        return port
    }
}
