import Foundation
import PorticoStore
import PorticoTesting
import Testing

/// What the authorization endpoint refuses, and how: a page for an untrusted client or
/// redirect URI, an error redirect for everything else.
@Suite struct AuthorizationErrorTests {
    @Test func unknownClientShowsAPageAndNeverRedirects() async throws {
        try await ProviderHarness.with { provider in
            let client = try provider.addClient()
            let browser = TestBrowser(base: provider.base)
            for overrides: [String: String?] in [["client_id": "nobody"], ["client_id": nil]] {
                let reply = try await browser.get(TestBrowser.authorizePath(client: client, overrides: overrides))
                #expect(reply.status == 400)
                #expect(reply.location == nil)
                #expect(reply.header("Content-Type")?.hasPrefix("text/html") == true)
                #expect(reply.text.contains("not registered"))
            }
            let repeated = try await browser.get(
                TestBrowser.authorizePath(client: client, extra: [("client_id", client.id)]))
            #expect(repeated.status == 400)
            #expect(repeated.location == nil)
        }
    }

    @Test func unregisteredRedirectURIShowsAPageNamingTheApp() async throws {
        try await ProviderHarness.with { provider in
            let client = try provider.addClient(name: "Photo Printer")
            let browser = TestBrowser(base: provider.base)
            for uri in [
                "https://evil.example/callback", "https://app.example/callback/extra", "https://app.example/callback#x",
                "HTTPS://app.example/callback",
            ] {
                let reply = try await browser.get(
                    TestBrowser.authorizePath(client: client, overrides: ["redirect_uri": uri]))
                #expect(reply.status == 400, "\(uri)")
                #expect(reply.location == nil)
                #expect(reply.text.contains("Photo Printer"))
            }
        }
    }

    @Test func omittedRedirectURIUsesTheOnlyRegisteredOne() async throws {
        try await ProviderHarness.with { provider in
            let single = try provider.addClient()
            let double = try provider.addClient(
                redirectURIs: ["https://app.example/one", "https://app.example/two"])
            let browser = TestBrowser(base: provider.base)
            let ok = try await browser.get(
                TestBrowser.authorizePath(client: single, overrides: ["redirect_uri": nil, "response_type": "token"]))
            #expect(try #require(ok.location).hasPrefix("https://app.example/callback?"))
            let ambiguous = try await browser.get(
                TestBrowser.authorizePath(client: double, overrides: ["redirect_uri": nil]))
            #expect(ambiguous.status == 400)
            #expect(ambiguous.location == nil)
        }
    }

    @Test func loopbackRedirectsMatchAnyPort() async throws {
        try await ProviderHarness.with { provider in
            let client = try provider.addClient(
                type: .public, redirectURIs: ["http://127.0.0.1/callback", "http://[::1]:8000/cb"])
            let browser = TestBrowser(base: provider.base)
            for uri in ["http://127.0.0.1:51234/callback", "http://127.0.0.1/callback", "http://[::1]:61000/cb"] {
                let reply = try await browser.get(
                    TestBrowser.authorizePath(
                        client: client, overrides: ["redirect_uri": uri, "response_type": "token"]))
                #expect(reply.status == 302, "\(uri)")
                #expect(try #require(reply.location).hasPrefix(uri + "?"), "\(uri)")
            }
            for uri in [
                "http://127.0.0.1:51234/other", "http://127.0.0.2:51234/callback", "http://localhost:51234/callback",
                "https://127.0.0.1:51234/callback", "http://127.0.0.1:51234@evil.example/callback",
            ] {
                let reply = try await browser.get(
                    TestBrowser.authorizePath(client: client, overrides: ["redirect_uri": uri]))
                #expect(reply.status == 400, "\(uri)")
                #expect(reply.location == nil)
            }
        }
    }

    @Test func customSchemesAreForPublicClientsOnly() async throws {
        try await ProviderHarness.with { provider in
            let native = try provider.addClient(type: .public, redirectURIs: ["com.example.app:/callback"])
            let server = try provider.addClient(type: .confidential, redirectURIs: ["com.example.server:/callback"])
            let browser = TestBrowser(base: provider.base)
            let ok = try await browser.get(TestBrowser.authorizePath(client: native))
            #expect(ok.status == 302)
            #expect(try #require(ok.location).hasPrefix("/login?"))
            let refused = try await browser.get(TestBrowser.authorizePath(client: server))
            #expect(refused.status == 400)
            #expect(refused.location == nil)

            let error = try await browser.get(
                TestBrowser.authorizePath(client: native, overrides: ["code_challenge": nil]))
            #expect(try #require(error.location).hasPrefix("com.example.app:/callback?error=invalid_request"))
        }
    }

    @Test(
        arguments: [
            (["code_challenge": nil], "invalid_request"),
            (["code_challenge_method": nil], "invalid_request"),
            (["code_challenge_method": "plain"], "invalid_request"),
            (["code_challenge": "short"], "invalid_request"),
            (["scope": "openid unknown_thing"], "invalid_scope"),
            (["scope": nil], "invalid_scope"),
            (["scope": "openid offline_access"], "invalid_scope"),
            (["response_type": "token"], "unsupported_response_type"),
            (["response_type": nil], "invalid_request"),
            (["response_mode": "fragment"], "invalid_request"),
            (["prompt": "none login"], "invalid_request"),
            (["prompt": "sometimes"], "invalid_request"),
            (["max_age": "-1"], "invalid_request"),
            (["max_age": "soon"], "invalid_request"),
            (["request": "eyJhbGciOiJub25lIn0.e30."], "invalid_request_object"),
            (["request_uri": "https://app.example/request.jwt"], "request_uri_not_supported"),
        ] as [([String: String?], String)])
    func badRequestsRedirectWithAnError(overrides: [String: String?], error: String) async throws {
        try await ProviderHarness.with { provider in
            let client = try provider.addClient()
            let browser = TestBrowser(base: provider.base)
            let reply = try await browser.get(TestBrowser.authorizePath(client: client, overrides: overrides))
            #expect(reply.status == 302)
            #expect(try #require(reply.location).hasPrefix("https://app.example/callback?"))
            let parameters = reply.redirectParameters
            #expect(parameters["error"] == error)
            #expect(parameters["error_description"]?.isEmpty == false)
            #expect(parameters["state"] == "state-123")
            #expect(parameters["iss"] == provider.issuer)
            #expect(parameters["code"] == nil)
        }
    }

    @Test func duplicateParametersAreRefused() async throws {
        try await ProviderHarness.with { provider in
            let client = try provider.addClient()
            let browser = TestBrowser(base: provider.base)
            let reply = try await browser.get(TestBrowser.authorizePath(client: client, extra: [("scope", "email")]))
            #expect(reply.redirectParameters["error"] == "invalid_request")
            #expect(reply.redirectParameters["error_description"]?.contains("scope") == true)
        }
    }

    @Test func clientsWithoutTheCodeGrantAreUnauthorized() async throws {
        try await ProviderHarness.with { provider in
            let client = try provider.addClient(grants: ["client_credentials"])
            let browser = TestBrowser(base: provider.base)
            let reply = try await browser.get(TestBrowser.authorizePath(client: client))
            #expect(reply.redirectParameters["error"] == "unauthorized_client")
        }
    }

    @Test func productScopesAreAcceptedWhenRegisteredAndAllowed() async throws {
        try await ProviderHarness.with { provider in
            try provider.store.insert(PageProductScopes.printing)
            try provider.addUser()
            let client = try provider.addClient(scopes: ["openid", "print:photos"])
            let browser = TestBrowser(base: provider.base)
            let start = try await browser.get(TestBrowser.authorizePath(client: client, scope: "openid print:photos"))
            let login = try await browser.signIn(at: try #require(start.location))
            let page = try await browser.get(try #require(login.location))
            #expect(page.text.contains("Print your photos"))
        }
    }
}

/// Product scopes the tests register.
private enum PageProductScopes {
    static let printing = ProductScope(name: "print:photos", description: "Print your photos")
}
