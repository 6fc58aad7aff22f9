import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// Unbinding tells the host's backend by OpenID Connect Back-Channel Logout: a real receiver
/// on a loopback port gets the signed `logout_token`, whoever unbound.
@Suite("Unbind and back-channel logout") struct UnbindBackChannelTests {
    @Test("the host's DELETE and the person's Unlink each send the host a logout token", arguments: [true, false])
    func hostIsTold(byHost: Bool) async throws {
        let receiver = try LogoutReceiver()
        defer { receiver.stop() }
        try await ProviderHarness.with(configuration: backChannelConfiguration()) { harness in
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
            let tokens = try await receiver.tokens(atLeast: 1)
            let claims = try await harness.verifiedLogoutToken(tokens[0], for: host)
            #expect(claims.subject == signedIn.user.id)
            #expect(claims["sid"] == nil)
        }
    }
}
