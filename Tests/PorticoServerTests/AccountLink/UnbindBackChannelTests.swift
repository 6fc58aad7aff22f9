import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore
import PorticoTesting
import Synchronization
import Testing

@testable import PorticoServer

/// Unbinding tells the host's backend by OpenID Connect Back-Channel Logout: a real receiver
/// on a loopback port gets the signed `logout_token`, whoever unbound.
/// A backend that records the `logout_token`s POSTed to `/logout`.
final class UnbindLogoutReceiver: Sendable {
    private final class Log: Sendable {
        let tokens = Mutex<[String]>([])
    }

    private let log = Log()
    let server: HTTPServer

    init() throws {
        let router = Router()
        let log = self.log
        router.post("/logout") { request in
            if let token = try? FormParameters(decoding: request.body)["logout_token"] {
                log.tokens.withLock { $0.append(token) }
            }
            return Response(status: .ok)
        }
        server = HTTPServer(
            configuration: ServerConfiguration(host: "127.0.0.1", port: 0, threads: 1, logRequests: false),
            router: router)
        try server.start()
    }

    var uri: String { "http://127.0.0.1:\(server.port)/logout" }

    /// The tokens received once at least one arrived, waiting at most a minute.
    func received() async throws -> [String] {
        for _ in 0..<600 {
            let got = log.tokens.withLock { $0 }
            if !got.isEmpty { return got }
            try await Task.sleep(for: .milliseconds(100))
        }
        return []
    }
}

@Suite("Unbind and back-channel logout") struct UnbindBackChannelTests {
    @Test("the host's DELETE and the person's Unlink each send the host a logout token", arguments: [true, false])
    func hostIsTold(byHost: Bool) async throws {
        let receiver = try UnbindLogoutReceiver()
        defer { receiver.server.shutdown() }
        try await ProviderHarness.with { harness in
            var host = try harness.addHost()
            host.backchannelLogoutURI = receiver.uri
            try harness.store.update(host)
            _ = try harness.addMiniProgram(of: host)
            let signedIn = try await harness.hostSignIn(to: host)
            let linkID = try #require(try await harness.link(signedIn, hostUserID: "mc-1").string("link_id"))
            if byHost {
                #expect(try await harness.unlink(linkID, client: signedIn.credentials).status == 204)
            } else {
                try harness.store.transaction { transaction in
                    let link = try #require(try transaction.accountLink(id: linkID))
                    try AccountUnlinking.unbind(
                        link, by: .person, now: harness.clock.now, accessTokenLifetime: 3600, in: transaction)
                }
            }
            let tokens = try await receiver.received()
            try #require(tokens.count >= 1)
            let verified = try await harness.jwksVerifier().verify(tokens[0], algorithms: [.rs256, .es256, .edDSA])
            #expect(verified.header.type == "logout+jwt")
            let claims = try verified.claims()
            #expect(claims.audience == [host.id])
            #expect(claims.subject == signedIn.user.id)
            #expect(claims["events"]?.objectValue?["http://schemas.openid.net/event/backchannel-logout"] != nil)
            #expect(claims["nonce"] == nil)
        }
    }
}
