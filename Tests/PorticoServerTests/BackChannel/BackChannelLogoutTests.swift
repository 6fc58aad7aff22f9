import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// OpenID Connect Back-Channel Logout 1.0 through the real provider: each event that ends a
/// person's sign-in at an app POSTs a logout token to that app's backend (a real HTTP server on
/// a loopback port), which verifies against the provider's JWKS with the claims §2.4 asks for.
@Suite struct BackChannelLogoutTests {
    @Test func discoveryAdvertisesBackChannelLogoutWithSessions() async throws {
        try await ProviderHarness.with { provider in
            let document = try await provider.get("/.well-known/openid-configuration").json
            #expect(document["backchannel_logout_supported"] == .bool(true))
            #expect(document["backchannel_logout_session_supported"] == .bool(true))
        }
    }

    /// RP-initiated logout tells every app whose tokens came from that browser session, with
    /// the `sid` its ID tokens carry (the same for every app of the session, kept on refresh),
    /// and the `sub` that app knows the person by; apps of other sessions and apps without a
    /// back-channel URI hear nothing.
    @Test func signingABrowserOutTellsTheAppsOfThatSessionWithItsSid() async throws {
        try await ProviderHarness.with(configuration: backChannelConfiguration()) { provider in
            let user = try provider.addUser()
            let receiver = try LogoutReceiver()
            let shop = try provider.addBackChannelClient(
                name: "Shop", receiver: receiver, idTokenAlgorithm: "ES256", pairwise: true)
            let news = try provider.addBackChannelClient(name: "News", receiver: receiver)
            let plain = try provider.addClient(name: "Plain", postLogoutRedirectURIs: [sessionTestSignedOutURI])
            let browser = TestBrowser(base: provider.base)
            let shopTokens = try await provider.authorizeAndRedeem(browser, client: shop)
            let newsTokens = try await provider.authorizeAndRedeem(browser, client: news)
            let plainTokens = try await provider.authorizeAndRedeem(browser, client: plain)
            let shopID = try await provider.idTokenClaims(try #require(shopTokens["id_token"]?.stringValue))
            let newsID = try await provider.idTokenClaims(try #require(newsTokens["id_token"]?.stringValue))
            let plainID = try await provider.idTokenClaims(try #require(plainTokens["id_token"]?.stringValue))
            let sid = try #require(shopID["sid"]?.stringValue)
            // The pairwise shop's sid is its sector's own (``PairwiseSessionIDTests``).
            let newsSID = try #require(newsID["sid"]?.stringValue)
            #expect(newsSID != sid)
            #expect(plainID["sid"] == nil)
            #expect(shopID.subject != user.id)
            // A refreshed ID token keeps the session's sid.
            let refreshed = try await provider.refresh(
                try #require(shopTokens["refresh_token"]?.stringValue), client: .post(id: shop.id, secret: "secret"))
            let refreshedID = try await provider.idTokenClaims(try #require(refreshed.json["id_token"]?.stringValue))
            #expect(refreshedID["sid"]?.stringValue == sid)
            // Another browser's session has a sid of its own, and is not signed out.
            let other = TestBrowser(base: provider.base)
            let otherTokens = try await provider.authorizeAndRedeem(other, client: news)
            let otherID = try await provider.idTokenClaims(try #require(otherTokens["id_token"]?.stringValue))
            #expect(otherID["sid"]?.stringValue != newsSID)
            #expect(receiver.tokens.isEmpty)

            var components = URLComponents()
            components.path = "/oauth/logout"
            components.queryItems = [
                URLQueryItem(name: "id_token_hint", value: try #require(shopTokens["id_token"]?.stringValue)),
                URLQueryItem(name: "post_logout_redirect_uri", value: "https://shop.example/bye"),
            ]
            let logout = try await browser.get(try #require(components.string))
            #expect(logout.status == 302)

            let tokens = try await receiver.tokens(atLeast: 2)
            try await provider.waitForEmptyOutbox()
            #expect(receiver.tokens.count == 2)
            #expect(Set(audiences(tokens)) == [shop.id, news.id])
            for token in tokens {
                let audience = try #require(audiences([token]).first)
                let client = audience == shop.id ? shop : news
                let claims = try await provider.verifiedLogoutToken(token, for: client)
                #expect(claims["sid"]?.stringValue == (client.id == shop.id ? sid : newsSID))
                #expect(claims.subject == (client.id == shop.id ? shopID.subject : user.id))
            }
        }
    }

    /// Remove in Your Account tells that app (every session of the person there: no `sid`),
    /// and no other.
    @Test func removingAnAppInYourAccountTellsThatApp() async throws {
        try await ProviderHarness.with(configuration: backChannelConfiguration()) { provider in
            let user = try provider.addUser()
            let receiver = try LogoutReceiver()
            let shop = try provider.addBackChannelClient(name: "Shop", receiver: receiver)
            let news = try provider.addBackChannelClient(name: "News", receiver: receiver)
            let browser = TestBrowser(base: provider.base)
            _ = try await provider.authorizeAndRedeem(browser, client: shop)
            _ = try await provider.authorizeAndRedeem(browser, client: news)
            let page = try await browser.get("/account")
            let csrf = try #require(page.hiddenField("csrf_token"))
            let removed = try await browser.post("/account", [("csrf_token", csrf), ("revoke", shop.id)])
            #expect(removed.status == 303)

            let tokens = try await receiver.tokens(atLeast: 1)
            try await provider.waitForEmptyOutbox()
            #expect(receiver.tokens.count == 1)
            let claims = try await provider.verifiedLogoutToken(try #require(tokens.first), for: shop)
            #expect(claims.subject == user.id)
            #expect(claims["sid"] == nil)
        }
    }

    /// `portico user disable` and `portico user remove` tell every app the person allowed; a
    /// pairwise app still gets its own `sub` for an account that no longer exists.
    @Test func disablingAndRemovingAnAccountTellEveryApp() async throws {
        try await ProviderHarness.with(configuration: backChannelConfiguration()) { provider in
            let user = try provider.addUser()
            let receiver = try LogoutReceiver()
            let shop = try provider.addBackChannelClient(name: "Shop", receiver: receiver, pairwise: true)
            let news = try provider.addBackChannelClient(name: "News", receiver: receiver, idTokenAlgorithm: "EdDSA")
            let browser = TestBrowser(base: provider.base)
            let shopTokens = try await provider.authorizeAndRedeem(browser, client: shop)
            _ = try await provider.authorizeAndRedeem(browser, client: news)
            let shopSubject = try await provider.idTokenClaims(try #require(shopTokens["id_token"]?.stringValue))
                .subject

            _ = try UserAdministration.setDisabled(
                true, reference: user.email, in: provider.store, now: provider.clock.now)
            let disabled = try await receiver.tokens(atLeast: 2)
            try await provider.waitForEmptyOutbox()
            #expect(Set(audiences(disabled)) == [shop.id, news.id])
            _ = try UserAdministration.setDisabled(
                false, reference: user.id, in: provider.store, now: provider.clock.now)

            _ = try UserAdministration.remove(user.id, in: provider.store, now: provider.clock.now)
            let all = try await receiver.tokens(atLeast: 4)
            try await provider.waitForEmptyOutbox()
            #expect(all.count == 4)
            for token in all {
                let client = audiences([token]).first == shop.id ? shop : news
                let claims = try await provider.verifiedLogoutToken(token, for: client)
                #expect(claims.subject == (client.id == shop.id ? shopSubject : user.id))
                #expect(claims["sid"] == nil)
            }
        }
    }

    /// A password reset tells every app of the person.
    @Test func aPasswordResetTellsEveryApp() async throws {
        try await ProviderHarness.with(configuration: backChannelConfiguration()) { provider in
            try provider.addUser()
            let receiver = try LogoutReceiver()
            let shop = try provider.addBackChannelClient(name: "Shop", receiver: receiver)
            let news = try provider.addBackChannelClient(name: "News", receiver: receiver)
            let browser = TestBrowser(base: provider.base)
            _ = try await provider.authorizeAndRedeem(browser, client: shop)
            _ = try await provider.authorizeAndRedeem(browser, client: news)

            let owner = TestBrowser(base: provider.base)
            _ = try await accountForgot(owner, email: ProviderHarness.defaultEmail)
            let link = try resetLink(in: try #require(try await provider.outboxMessages(atLeast: 1).first))
            let reset = try await accountReset(owner, link: link)
            #expect(reset.status == 200 || reset.status == 303)

            let tokens = try await receiver.tokens(atLeast: 2)
            try await provider.waitForEmptyOutbox()
            #expect(receiver.tokens.count == 2)
            #expect(Set(audiences(tokens)) == [shop.id, news.id])
            for token in tokens {
                _ = try await provider.verifiedLogoutToken(
                    token, for: audiences([token]).first == shop.id ? shop : news)
            }
        }
    }

    /// Signing in as someone else in the same browser signs the previous session out.
    @Test func signingInAgainSignsThePreviousSessionOut() async throws {
        try await ProviderHarness.with(configuration: backChannelConfiguration()) { provider in
            try provider.addUser()
            try provider.addUser(email: "bob@example.com", name: "Bob")
            let receiver = try LogoutReceiver()
            let shop = try provider.addBackChannelClient(name: "Shop", receiver: receiver)
            let browser = TestBrowser(base: provider.base)
            let tokens = try await provider.authorizeAndRedeem(browser, client: shop)
            let sid = try await provider.idTokenClaims(try #require(tokens["id_token"]?.stringValue))["sid"]

            let start = try await browser.get(
                TestBrowser.authorizePath(client: shop, overrides: ["prompt": "login"]))
            let login = try await browser.signIn(at: try #require(start.location), email: "bob@example.com")
            #expect(login.status == 303)

            let received = try await receiver.tokens(atLeast: 1)
            let claims = try await provider.verifiedLogoutToken(try #require(received.first), for: shop)
            #expect(claims["sid"] == sid)
        }
    }
}
