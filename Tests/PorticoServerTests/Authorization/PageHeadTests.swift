import Foundation
import PorticoTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// HEAD runs no page's GET: consent and "Continue" would go on to mint a code into a
/// `Location` nobody reads.
@Suite struct PageHeadTests {
    private func head(_ url: String, cookie: String) async throws -> HTTPURLResponse {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = "HEAD"
        request.setValue(cookie, forHTTPHeaderField: "Cookie")
        let (_, response) = try await CLIRedirectRefusal.session.data(for: request)
        return try #require(response as? HTTPURLResponse)
    }

    @Test func headOnAnActingPageIsRefusedAndMintsNoCode() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let client = try provider.addClient()
            let browser = TestBrowser(base: provider.base)
            let start = try await browser.get(TestBrowser.authorizePath(client: client))
            let login = try await browser.signIn(at: try #require(start.location))
            let consent = try #require(login.location)
            #expect(consent.hasPrefix("/consent?"))
            #expect(try await browser.decide(at: consent, "allow").redirectParameters["code"] != nil)
            let cookie = "portico_session=\(try #require(browser.cookie("portico_session")))"
            // Consent is now remembered: a GET of either page goes on to a code.
            let pages = [consent, consent.replacingOccurrences(of: "/consent?", with: "/continue?")]
            for path in pages + ["/login", "/account", "/signup", "/signup/verify", "/password/forgot", "/device"] {
                let reply = try await head(provider.base + path, cookie: cookie)
                #expect(reply.statusCode == 405, "\(path)")
                #expect(reply.value(forHTTPHeaderField: "Location") == nil, "\(path)")
            }
            // The control: the same GET does mint one.
            #expect(try await browser.get(consent).redirectParameters["code"] != nil)
        }
    }
}
