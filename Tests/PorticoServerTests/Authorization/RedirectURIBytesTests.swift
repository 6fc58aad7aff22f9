import Foundation
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// Redirect URIs are compared byte for byte (Swift's `==` is canonical equivalence) and the
/// browser goes to the registered spelling; the loopback any-port rule is for public clients
/// and IP literals only (RFC 8252 §7.3, §8.3).
@Suite struct RedirectURIBytesTests {
    /// `K` (U+004B) and U+212A KELVIN SIGN are canonically equivalent, so `String ==` says equal.
    static let kelvin = "https://app.example/\u{212A}ey"
    static let plain = "https://app.example/Key"

    @Test func canonicallyEquivalentURIsAreNotTheRegisteredOne() async throws {
        #expect(Self.kelvin == Self.plain)
        try await ProviderHarness.with { provider in
            let client = try provider.addClient(redirectURIs: [Self.plain])
            let browser = TestBrowser(base: provider.base)
            let lookalike = try await browser.get(
                TestBrowser.authorizePath(
                    client: client, overrides: ["redirect_uri": Self.kelvin, "response_type": "token"]))
            #expect(lookalike.status == 400)
            #expect(lookalike.location == nil)
            let exact = try await browser.get(
                TestBrowser.authorizePath(
                    client: client, overrides: ["redirect_uri": Self.plain, "response_type": "token"]))
            #expect(exact.status == 302)
            #expect(exact.location?.hasPrefix(Self.plain + "?") == true)
        }
    }

    @Test func aCanonicallyEquivalentPostLogoutURIIsNotRegistered() async throws {
        try await ProviderHarness.with { provider in
            let client = Client(
                name: "Shop", type: .confidential, secret: "secret", redirectURIs: ["https://app.example/callback"],
                postLogoutRedirectURIs: [Self.plain])
            try provider.store.insert(client)
            let browser = TestBrowser(base: provider.base)
            let query = "client_id=\(client.id)&post_logout_redirect_uri="
            let encodedKelvin = try #require(Self.kelvin.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            let lookalike = try await browser.get("/oauth/logout?" + query + encodedKelvin)
            #expect(lookalike.status == 400)
            #expect(!lookalike.text.contains("app.example/\u{212A}"))
            let encodedPlain = try #require(Self.plain.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            let exact = try await browser.get("/oauth/logout?" + query + encodedPlain)
            #expect(exact.status == 200 || exact.status == 302 || exact.status == 303, "\(exact.status)")
        }
    }

    @Test func anyPortOnlyForPublicClientsAndIPLiterals() async throws {
        try await ProviderHarness.with { provider in
            let native = try provider.addClient(type: .public, redirectURIs: ["http://localhost/callback"])
            let confidential = try provider.addClient(
                type: .confidential, redirectURIs: ["http://127.0.0.1/callback"])
            let nativeIP = try provider.addClient(type: .public, redirectURIs: ["http://127.0.0.1/callback"])
            let browser = TestBrowser(base: provider.base)
            for (client, uri, allowed) in [
                (native, "http://localhost:51234/callback", false), (native, "http://localhost/callback", true),
                (confidential, "http://127.0.0.1:51234/callback", false),
                (confidential, "http://127.0.0.1/callback", true),
                (nativeIP, "http://127.0.0.1:51234/callback", true),
            ] {
                let reply = try await browser.get(
                    TestBrowser.authorizePath(
                        client: client, overrides: ["redirect_uri": uri, "response_type": "token"]))
                #expect((reply.status == 302) == allowed, "\(client.type) \(uri): \(reply.status)")
                if allowed { #expect(reply.location?.hasPrefix(uri + "?") == true) }
            }
        }
    }

    /// U+0600 (a "prepend" character) joins the `#` after it into one grapheme, which a Character
    /// search does not find. The policy searches scalars; before, it was right only because
    /// Foundation's `contains(_:)` overload (a UTF-16 substring search) won over the standard
    /// library's, so this pins the behaviour rather than having failed before.
    @Test func aFragmentAfterAPrependCharacterIsStillAFragment() throws {
        let uri = "com.example.app:/cb\u{600}#code=stolen"
        #expect(throws: AdminError.self) {
            try ClientURIRules.checkRedirect(uri, allowsPrivateUseScheme: true)
        }
        let client = Client(id: "app", name: "App", type: .public, redirectURIs: [uri])
        #expect(throws: RedirectURIPolicy.Problem.notAllowed) { try RedirectURIPolicy.resolve(uri, for: client) }
        let loopback = Client(id: "cli", name: "CLI", type: .public, redirectURIs: ["http://127.0.0.1/cb"])
        #expect(
            !RedirectURIPolicy.matchesOnAnotherPort("http://127.0.0.1\u{600}/cb", registered: "http://127.0.0.1/cb"))
        #expect(try RedirectURIPolicy.resolve("http://127.0.0.1:5000/cb", for: loopback) == "http://127.0.0.1:5000/cb")
    }
}
