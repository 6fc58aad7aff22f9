import Foundation
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

#if canImport(Glibc)
    import Glibc
#endif

/// One app's backend that never answers delays no other app's logout notices: each backend has
/// at most one delivery in flight, several backends are served at once, and a backend that fails
/// rests (its other notices are postponed) instead of holding a thread per notice.
@Suite struct BackChannelTarpitTests {
    /// Three notices to a backend that accepts and never answers, then one to a healthy backend:
    /// the healthy one is told while the tarpit still holds the first (whose attempt lasts the
    /// 10 s request timeout), the tarpit sees one connection, and after its attempt fails its
    /// other notices wait, unattempted, for the tarpit's rest to end.
    @Test func aBackendThatNeverAnswersDelaysNoOtherApp() async throws {
        let configuration = backChannelConfiguration {
            $0.backchannelLogout.requestTimeout = .seconds(10)
            $0.backchannelLogout.firstRetryDelay = .seconds(60)
            $0.backchannelLogout.maximumRetryDelay = .seconds(60)
        }
        try await ProviderHarness.with(configuration: configuration) { provider in
            let tarpit = try HostileReceiver(.tarpit)
            defer { tarpit.stop() }
            var stuck = Client(
                name: "Stuck", type: .confidential, secret: "secret", redirectURIs: ["https://stuck.example/cb"],
                allowedScopes: ["openid"])
            stuck.backchannelLogoutURI = tarpit.uri
            try provider.store.insert(stuck)
            let receiver = try LogoutReceiver()
            let shop = try provider.addBackChannelClient(name: "Shop", receiver: receiver)

            let held = try (0..<3).map { try provider.enqueueLogout(for: stuck, userID: "person-\($0)") }
            let started = ContinuousClock.now
            _ = try provider.enqueueLogout(for: shop, userID: "someone")
            // Generous, yet shorter than the one request timeout the tarpit holds an attempt for.
            _ = try await receiver.tokens(atLeast: 1, timeout: .seconds(8))
            let delay = ContinuousClock.now - started
            #expect(tarpit.connections == 1, "more than one delivery in flight to one backend")
            #expect(
                try provider.store.read { try $0.outboxMessage(id: held[0]) }?.failedAttempts == 0,
                "the healthy app waited for the tarpit's timeout (\(delay))")

            try await waitUntil("the tarpit's first attempt to fail", timeout: .seconds(30)) {
                try held.compactMap { id in try provider.store.read { try $0.outboxMessage(id: id) } }
                    .contains { $0.failedAttempts == 1 }
            }
            // Rested: its other notices are postponed, not attempted one timeout after another.
            try await Task.sleep(for: .milliseconds(500))
            let messages = try held.compactMap { id in try provider.store.read { try $0.outboxMessage(id: id) } }
            #expect(messages.filter { $0.failedAttempts == 1 }.count == 1)
            for message in messages where message.failedAttempts == 0 {
                #expect(message.nextAttemptAt > provider.clock.now.addingTimeInterval(20), "not pushed back")
                #expect(message.lastError == nil)
            }
            #expect(tarpit.connections == 1)
        }
    }

    /// A backend whose port takes no connection (its accept queue full, so the kernel drops the
    /// handshake) costs the connect timeout, not the request timeout.
    @Test func connectingGivesUpAfterTheConnectTimeout() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 0) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        try #require(listening)
        // Fill the accept queue: nothing ever accepts.
        var fillers: [Int32] = []
        defer { for filler in fillers { close(filler) } }
        for _ in 0..<4 {
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, length) }
            }
            fillers.append(filler)
        }
        let port = UInt16(bigEndian: address.sin_port)
        let client = OutboundHTTPClient(
            policy: OutboundAddressPolicy(allowsLoopback: true), connectTimeout: .milliseconds(500),
            timeout: .seconds(20))
        let started = ContinuousClock.now
        let exchange = client.post(
            Array("x=1".utf8), contentType: "application/x-www-form-urlencoded",
            to: try #require(URL(string: "http://127.0.0.1:\(port)/logout")))
        let took = ContinuousClock.now - started
        guard case .failed(let reason) = exchange.outcome else {
            Issue.record("connecting to a full accept queue gave \(exchange.outcome)")
            return
        }
        #expect(reason.contains("took longer than"), "\(reason)")
        #expect(took < .seconds(10), "it waited \(took), not the connect timeout")
    }
}
