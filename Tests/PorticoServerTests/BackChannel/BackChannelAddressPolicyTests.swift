import Foundation
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// The provider's requests to apps' URLs never reach its own network: the address a URL's host
/// resolves to is checked right before connecting to it, whatever was registered.
@Suite struct BackChannelAddressPolicyTests {
    /// A client told of sign-outs at `uri`, stored as registration left it (a name that
    /// resolves elsewhere at delivery than at registration looks just like this).
    private func client(at uri: String, in provider: ProviderHarness) throws -> Client {
        var client = Client(
            name: "Inside", type: .confidential, secret: "secret", redirectURIs: ["https://inside.example/cb"],
            allowedScopes: ["openid"])
        client.backchannelLogoutURI = uri
        try provider.store.insert(client)
        return client
    }

    private func outcome(of id: String, in provider: ProviderHarness) async throws -> OutboxMessage {
        try await waitUntil("the message given up") {
            try provider.store.read { try $0.outboxMessage(id: id) }?.failedAt != nil
        }
        return try #require(try provider.store.read { try $0.outboxMessage(id: id) })
    }

    /// Without `--allow-loopback-callbacks`, a backend on this machine is never contacted,
    /// named by address or by a name that resolves to loopback; the message is given up at once.
    @Test func withoutTheOptInALoopbackBackendIsNeverContacted() async throws {
        let configuration = backChannelConfiguration { $0.allowsLoopbackCallbacks = false }
        try await ProviderHarness.with(configuration: configuration) { provider in
            let receiver = try LogoutReceiver()
            for uri in [receiver.uri, "http://localhost:\(receiver.port)\(LogoutReceiver.path)"] {
                let id = try provider.enqueueLogout(for: try client(at: uri, in: provider), userID: "someone")
                let message = try await outcome(of: id, in: provider)
                #expect(message.failedAttempts == 1)
                #expect(message.lastError?.contains("loopback") == true, "\(message.lastError ?? "")")
            }
            #expect(receiver.tokens.isEmpty)
        }
    }

    /// Private, link-local (the cloud metadata service) and reserved addresses are refused even
    /// with the opt-in, before any connection (a connection attempt would fail otherwise: no
    /// such host answers here).
    @Test func privateAndLinkLocalAddressesAreRefusedEvenWithTheOptIn() async throws {
        try await ProviderHarness.with(configuration: backChannelConfiguration()) { provider in
            let uris = [
                "http://169.254.169.254/latest/meta-data/", "https://10.1.2.3/logout", "https://[fd00::1]/logout",
                "https://[::ffff:192.168.1.1]/logout", "https://[64:ff9b::a9fe:a9fe]/logout", "http://0.0.0.0:9/x",
            ]
            for uri in uris {
                let id = try provider.enqueueLogout(for: try client(at: uri, in: provider), userID: "someone")
                let message = try await outcome(of: id, in: provider)
                #expect(
                    message.lastError?.contains("private, link-local or reserved") == true,
                    "\(uri): \(message.lastError ?? "")")
            }
        }
    }

    /// What the policy says of each kind of address, and of hosts as registration sees them.
    @Test func thePolicyJudgesAddressesAndHosts() {
        let strict = OutboundAddressPolicy()
        let loose = OutboundAddressPolicy(allowsLoopback: true)
        for address in ["93.184.216.34", "2606:4700::1111", "8.8.8.8", "::ffff:8.8.8.8"] {
            #expect(strict.refusal(forAddress: address) == nil, "\(address)")
        }
        for address in ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"] {
            #expect(strict.refusal(forAddress: address)?.contains("loopback") == true, "\(address)")
            #expect(loose.refusal(forAddress: address) == nil, "\(address)")
        }
        let inside = [
            "10.0.0.1", "172.16.5.4", "172.31.255.255", "192.168.0.1", "169.254.169.254", "100.64.0.1", "0.0.0.0",
            "224.0.0.1", "255.255.255.255", "fc00::1", "fd12:3456::1", "fe80::1", "::", "ff02::1",
            "::ffff:10.0.0.1", "::a9fe:a9fe", "64:ff9b::a00:1", "2002:c0a8:101::1",
        ]
        for address in inside {
            #expect(loose.refusal(forAddress: address) != nil, "\(address)")
        }
        #expect(strict.refusal(forHost: "app.example") == nil)
        #expect(strict.refusal(forHost: "203.0.114.7") == nil)
        for host in ["127.0.0.1", "localhost", "LOCALHOST.", "api.localhost", "[::1]", "2130706433", "0x7f.1", "127.1"]
        {
            #expect(strict.refusal(forHost: host)?.contains("loopback") == true, "\(host)")
            #expect(loose.refusal(forHost: host) == nil, "\(host)")
        }
        for host in ["169.254.169.254", "[fd00::1]", "10.1", "0xa9.0xfe.0xa9.0xfe", "[::ffff:a9fe:a9fe]"] {
            #expect(loose.refusal(forHost: host) != nil, "\(host)")
        }
    }
}
