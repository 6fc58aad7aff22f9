import Foundation
import PorticoTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct AuthorizeHeadRequestTests {
    /// HEAD is answered for every GET route, but at the authorization endpoint it would run the
    /// request and could mint a code into a `Location` header; it is refused instead.
    @Test func headIsRefusedWithoutRedirecting() async throws {
        try await ProviderHarness.with { provider in
            let client = try provider.addClient()
            var request = URLRequest(
                url: try #require(URL(string: provider.base + TestBrowser.authorizePath(client: client))))
            request.httpMethod = "HEAD"
            let (_, response) = try await URLSession.shared.data(for: request)
            let http = try #require(response as? HTTPURLResponse)
            #expect(http.statusCode == 405)
            #expect(http.value(forHTTPHeaderField: "Allow") == "GET, POST")
            #expect(http.value(forHTTPHeaderField: "Location") == nil)
        }
    }
}
