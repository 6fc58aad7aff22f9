import Foundation
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Form posts must come from the provider's own origin (another loopback port shares its
/// cookies, so the CSRF token alone cannot stop login CSRF); https pages carry HSTS.
@Suite struct FormOriginTests {
    /// Signs in with the login page's own CSRF cookie and token, adding `headers` to the post.
    private func signIn(_ base: String, headers: [String: String]) async throws -> Int {
        let page = try await CLIHTTP.get(base + "/login")
        let cookie = try #require(page.headers["set-cookie"]?.split(separator: ";").first.map(String.init))
        let marker = #"name="csrf_token" value=""#
        let start = try #require(page.body.range(of: marker))
        let token = page.body[start.upperBound...].prefix { $0 != "\"" }
        var request = URLRequest(url: try #require(URL(string: base + "/login")))
        request.httpMethod = "POST"
        request.httpBody = Data("csrf_token=\(token)&email=ann%40example.com&password=correct+horse".utf8)
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.setValue(cookie, forHTTPHeaderField: "Cookie")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return try await CLIHTTP.send(request).status
    }

    @Test func postsFromAnotherOriginAreRefused() async throws {
        try await ProviderHarness.with { provider in
            try provider.addUser()
            let base = provider.base
            let port = provider.provider.port
            for headers in [
                ["Origin": "http://127.0.0.1:9"], ["Origin": "null"], ["Origin": "http://evil.example"],
                ["Sec-Fetch-Site": "same-site"], ["Sec-Fetch-Site": "cross-site"],
                ["Sec-Fetch-Site": "same-site", "Origin": "http://127.0.0.1:\(port)"],
            ] {
                #expect(try await signIn(base, headers: headers) == 403, "\(headers)")
            }
            for headers in [
                ["Origin": "http://127.0.0.1:\(port)"], ["Sec-Fetch-Site": "same-origin"], ["Sec-Fetch-Site": "none"],
                [:],
            ] {
                #expect(try await signIn(base, headers: headers) == 303, "\(headers)")
            }
        }
    }

    @Test func httpsPagesCarryHSTSAndHTTPPagesDoNot() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("portico-hsts-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let provider = try IdentityProvider(
            configuration: ProviderConfiguration(
                port: 0, issuer: "https://127.0.0.1",
                logRequests: false),
            store: try openStore(url: "sqlite:\(directory.path)/portico.db", longRunning: true))
        try provider.start()
        defer { provider.shutdown() }
        let page = try await CLIHTTP.get("http://127.0.0.1:\(provider.port)/login")
        #expect(page.status == 200)
        #expect(page.headers["strict-transport-security"] == "max-age=31536000")
        try await ProviderHarness.with { plain in
            let page = try await CLIHTTP.get(plain.base + "/login")
            #expect(page.headers["strict-transport-security"] == nil)
        }
    }
}
