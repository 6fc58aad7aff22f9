import Foundation
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// An app backend that answers a huge body costs the provider the few KiB of a status line.
@Suite struct BackChannelHostileBackendTests {
    /// More than the kernel's socket buffers on loopback can hold (32 MiB receive, 4 MiB send at
    /// most here), so what the backend managed to write beyond them is what the provider read.
    private static let answerBytes = 256 << 20
    private static let buffered = 48 << 20

    /// The backend answers 200 with 256 MiB: the message is delivered, and the backend could
    /// write no more than the socket buffers hold, because the provider read only the status.
    @Test func aHugeAnswerIsReadOnlyAsFarAsItsStatus() async throws {
        try await ProviderHarness.with(configuration: backChannelConfiguration()) { provider in
            let receiver = try HostileReceiver(.hugeAnswer(bytes: Self.answerBytes))
            defer { receiver.stop() }
            var client = Client(
                name: "Hostile", type: .confidential, secret: "secret", redirectURIs: ["https://hostile.example/cb"],
                allowedScopes: ["openid"])
            client.backchannelLogoutURI = receiver.uri
            try provider.store.insert(client)
            let id = try provider.enqueueLogout(for: client, userID: "someone")
            try await provider.waitForEmptyOutbox()
            #expect(try provider.store.read { try $0.outboxMessage(id: id) }?.deliveredAt != nil)
            try await waitUntil("the backend's answer to end") { receiver.answersEnded == 1 }
            #expect(
                receiver.bytesWritten < Self.buffered,
                "the provider read \(receiver.bytesWritten) bytes of a \(Self.answerBytes)-byte answer")
        }
    }

    /// The client itself, on the same backend: it reports the status after reading no more than
    /// its limit.
    @Test func theClientReadsAtMostAFewKiB() throws {
        let receiver = try HostileReceiver(.hugeAnswer(bytes: Self.answerBytes))
        defer { receiver.stop() }
        let client = OutboundHTTPClient(
            policy: OutboundAddressPolicy(allowsLoopback: true), connectTimeout: .seconds(2), timeout: .seconds(10))
        let exchange = client.post(
            Array("logout_token=x".utf8), contentType: "application/x-www-form-urlencoded",
            to: try #require(URL(string: receiver.uri)))
        #expect(exchange.outcome == .status(200))
        #expect(exchange.bytesRead <= OutboundHTTPClient.maximumAnswerBytes)
    }
}
