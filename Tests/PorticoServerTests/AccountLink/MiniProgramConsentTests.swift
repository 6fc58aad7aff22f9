import Foundation
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// The `account_link` consent names the host's mini-programs (DESIGN, "Account link"); a
/// mini-program the host adds after the person allowed it was not named, so the person is
/// asked again, on a page that names it (issue 33).
@Suite struct MiniProgramConsentTests {
    /// A mini-program of `host` registered at the clock's time.
    private func addMiniProgram(_ name: String, of host: Client, in harness: ProviderHarness) throws {
        let client = try harness.addClient(name: name, type: .public, redirectURIs: [], grants: [])
        try harness.store.transaction {
            try $0.insert(MiniProgram(clientID: client.id, hostClientID: host.id, createdAt: harness.clock.now))
        }
    }

    @Test func aMiniProgramAddedAfterTheConsentAsksAgainNamingIt() async throws {
        try await ProviderHarness.with { harness in
            try harness.addUser()
            let host = try harness.addHost()
            try addMiniProgram("Mini Shop", of: host, in: harness)
            let browser = TestBrowser(base: harness.base)
            let scope = "openid account_link"

            let start = try await browser.get(TestBrowser.authorizePath(client: host, scope: scope))
            let login = try await browser.signIn(at: try #require(start.location))
            let consentPath = try #require(login.location)
            #expect(consentPath.hasPrefix("/consent"))
            let page = try await browser.get(consentPath)
            #expect(page.text.contains("Mini Shop"))
            let allowed = try await browser.decide(at: consentPath, "allow")
            #expect(allowed.redirectParameters["code"] != nil)
            // Allowed as it stands: no page again.
            let again = try await browser.get(TestBrowser.authorizePath(client: host, scope: scope))
            #expect(try #require(again.location).hasPrefix("https://host.example/callback?"))

            // A minute later the host adds a mini-program the person was never told of.
            harness.clock.advance(by: 60)
            try addMiniProgram("Mini Games", of: host, in: harness)
            let asked = try await browser.get(TestBrowser.authorizePath(client: host, scope: scope))
            let askedPath = try #require(asked.location)
            #expect(askedPath.hasPrefix("/consent"))
            let named = try await browser.get(askedPath)
            #expect(named.text.contains("Mini Games"))
            #expect(named.text.contains("Mini Shop"))
            #expect(named.text.contains(#"value="allow""#))
            let allowedAgain = try await browser.decide(at: askedPath, "allow")
            #expect(allowedAgain.redirectParameters["code"] != nil)
            let after = try await browser.get(TestBrowser.authorizePath(client: host, scope: scope))
            #expect(try #require(after.location).hasPrefix("https://host.example/callback?"))
        }
    }
}
