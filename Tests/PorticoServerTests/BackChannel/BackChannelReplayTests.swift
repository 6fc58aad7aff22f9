import Foundation
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// A used authorization code in the wrong hands must not become a way to flood an app's backend
/// with logout notices: a replay revokes and tells the app once per code, and notices still
/// waiting for the same app, person and session are one notice.
@Suite struct BackChannelReplayTests {
    /// A replay of `code` by `client` with a verifier that is not the code's.
    private func replay(_ code: ProviderHarness.IssuedCode, by client: ClientCredentials, in provider: ProviderHarness)
        async throws -> TestReply
    {
        try await provider.token(
            [
                ("grant_type", "authorization_code"), ("code", code.code), ("redirect_uri", code.redirectURI),
                ("code_verifier", "not-the-verifier-\(UUID().uuidString)"),
            ], client: client)
    }

    private func replayAudits(_ provider: ProviderHarness) throws -> Int {
        try provider.store.read { try $0.recentAuditEvents(limit: 100) }.filter { $0.action == "token.code_replayed" }
            .count
    }

    /// Ten replays of one used code, by its app and by another, with wrong verifiers: each is
    /// refused, and the app is told once and the audit log has one row.
    @Test func aCodeReplayedTenTimesTellsTheAppOnce() async throws {
        try await ProviderHarness.with(configuration: backChannelConfiguration()) { provider in
            let user = try provider.addUser()
            let receiver = try LogoutReceiver()
            let shop = try provider.addBackChannelClient(name: "Shop", receiver: receiver)
            let stranger = try provider.addPublicClient(name: "Stranger")
            let code = try provider.issueCode(for: shop, user: user, scopes: ["openid", "profile"])
            #expect(try await provider.redeem(code, client: .basic(id: shop.id, secret: "secret")).status == 200)

            for attempt in 0..<10 {
                let client: ClientCredentials =
                    attempt.isMultiple(of: 2) ? .basic(id: shop.id, secret: "secret") : .id(stranger.id)
                let reply = try await replay(code, by: client, in: provider)
                #expect(reply.status == 400)
                #expect(reply.string("error") == "invalid_grant")
            }
            _ = try await receiver.tokens(atLeast: 1)
            try await provider.waitForEmptyOutbox()
            #expect(receiver.tokens.count == 1, "each replay told the app again")
            #expect(try replayAudits(provider) == 1)
            let claims = try await provider.verifiedLogoutToken(try #require(receiver.tokens.first), for: shop)
            #expect(claims.subject == user.id)
        }
    }

    /// Two used codes of one person and app, each replayed, while the app's backend is down:
    /// both revoke, and the one notice waiting for that app, person and session carries both.
    @Test func noticesWaitingForTheSameAppPersonAndSessionAreOne() async throws {
        // The deliverer looks once at the start and then not for an hour, so what waits is what
        // the events enqueued.
        let configuration = backChannelConfiguration { $0.backchannelLogout.pollInterval = .seconds(3600) }
        try await ProviderHarness.with(configuration: configuration) { provider in
            let user = try provider.addUser()
            let other = try provider.addUser(email: "other@example.com")
            let receiver = try LogoutReceiver(running: false)
            let shop = try provider.addBackChannelClient(name: "Shop", receiver: receiver)
            let credentials = ClientCredentials.basic(id: shop.id, secret: "secret")
            var codes: [ProviderHarness.IssuedCode] = []
            for person in [user, user, other] {
                let code = try provider.issueCode(for: shop, user: person, scopes: ["openid"])
                #expect(try await provider.redeem(code, client: credentials).status == 200)
                codes.append(code)
            }
            for code in codes {
                #expect(try await replay(code, by: credentials, in: provider).status == 400)
            }
            #expect(try replayAudits(provider) == 3)
            let waiting = try provider.store.read {
                try $0.pendingOutboxMessages(topic: BackChannelLogout.topic, limit: 100)
            }
            let people = waiting.compactMap { BackChannelLogout.Message(payload: $0.payload)?.userID }
            #expect(people.sorted() == [user.id, other.id].sorted(), "one notice per person")
        }
    }
}
