import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// `sid` per sector (issue 33): two pairwise apps of different sectors that one browser
/// session signed in must not be able to join their users by the `sid` their ID tokens carry,
/// as pairwise `sub`s keep them from doing by subject; apps with public subjects share one.
@Suite struct PairwiseSessionIDTests {
    @Test func pairwiseAppsOfDifferentSectorsSeeDifferentSidsOfOneBrowserSession() async throws {
        try await ProviderHarness.with(configuration: backChannelConfiguration()) { provider in
            try provider.addUser()
            let receiver = try LogoutReceiver()
            let shop = try provider.addBackChannelClient(name: "Shop", receiver: receiver, pairwise: true)
            let mail = try provider.addBackChannelClient(name: "Mail", receiver: receiver, pairwise: true)
            let news = try provider.addBackChannelClient(name: "News", receiver: receiver)
            let blog = try provider.addBackChannelClient(name: "Blog", receiver: receiver)
            let browser = TestBrowser(base: provider.base)
            var tokens: [String: [String: JSONValue]] = [:]
            var sids: [String: String] = [:]
            for client in [shop, mail, news, blog] {
                let issued = try await provider.authorizeAndRedeem(browser, client: client)
                let claims = try await provider.idTokenClaims(try #require(issued["id_token"]?.stringValue))
                tokens[client.id] = issued
                sids[client.id] = try #require(claims["sid"]?.stringValue)
            }
            #expect(sids[shop.id] != sids[mail.id])
            #expect(sids[shop.id] != sids[news.id] && sids[mail.id] != sids[news.id])
            #expect(sids[news.id] == sids[blog.id])  // public subjects: one sid per session

            // A refresh repeats the sid that app saw.
            let refreshed = try await provider.refresh(
                try #require(tokens[mail.id]?["refresh_token"]?.stringValue),
                client: .post(id: mail.id, secret: "secret"))
            let refreshedID = try await provider.idTokenClaims(try #require(refreshed.json["id_token"]?.stringValue))
            #expect(refreshedID["sid"]?.stringValue == sids[mail.id])

            // The mail app's ID token proves this session by its sid: signed out without asking.
            var components = URLComponents()
            components.path = "/oauth/logout"
            components.queryItems = [
                URLQueryItem(name: "id_token_hint", value: try #require(tokens[mail.id]?["id_token"]?.stringValue)),
                URLQueryItem(name: "post_logout_redirect_uri", value: "https://mail.example/bye"),
            ]
            let logout = try await browser.get(try #require(components.string))
            #expect(logout.status == 302)
            #expect(logout.location == "https://mail.example/bye")

            // Each app is told with the sid it saw.
            let told = try await receiver.tokens(atLeast: 4)
            try await provider.waitForEmptyOutbox()
            #expect(receiver.tokens.count == 4)
            for token in told {
                let audience = try #require(audiences([token]).first)
                let client = try #require([shop, mail, news, blog].first { $0.id == audience })
                let claims = try await provider.verifiedLogoutToken(token, for: client)
                #expect(claims["sid"]?.stringValue == sids[client.id])
            }
        }
    }
}
