import Foundation
import PorticoCrypto
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// On an https issuer the provider's cookies are `__Host-` cookies, and only those are read: a
/// plain-named cookie (which a sibling host or plain-http page could plant) is ignored.
@Suite struct CookiePrefixTests {
    private func post(_ url: String, cookie: String, token: String) async throws -> (Int, [String: String]) {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = "POST"
        request.httpBody = Data("csrf_token=\(token)&email=ann%40example.com&password=correct+horse".utf8)
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.setValue(cookie, forHTTPHeaderField: "Cookie")
        let reply = try await CLIHTTP.send(request)
        return (reply.status, reply.headers)
    }

    @Test func httpsCookiesAreHostPrefixedAndPlainOnesAreIgnored() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("portico-host-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = "sqlite:\(directory.path)/portico.db"
        let provider = try IdentityProvider(
            configuration: ProviderConfiguration(
                port: 0, issuer: "https://127.0.0.1", logRequests: false,
                passwordHashing: ProviderHarness.passwordHashing),
            store: try openStore(url: url, longRunning: true))
        try provider.start()
        defer { provider.shutdown() }
        let store = try openStore(url: url)
        defer { store.close() }
        try store.insert(
            UserRecord(
                email: "ann@example.com", name: "Ann",
                passwordHash: try PasswordHasher(settings: ProviderHarness.passwordHashing).hash(
                    "correct horse")))
        let base = "http://127.0.0.1:\(provider.port)"

        let page = try await CLIHTTP.get(base + "/login")
        let setCookie = try #require(page.headers["set-cookie"])
        #expect(setCookie.hasPrefix("__Host-portico_csrf="))
        #expect(setCookie.contains("Secure") && setCookie.contains("Path=/") && !setCookie.contains("Domain"))

        // A planted plain cookie with a token made from it is not this browser's secret.
        let planted = SecureRandom.token()
        let plantedToken = CSRFTestToken.make(secret: planted)
        let (forged, _) = try await post(base + "/login", cookie: "portico_csrf=\(planted)", token: plantedToken)
        #expect(forged == 403)
        let (signedIn, headers) = try await post(
            base + "/login", cookie: "__Host-portico_csrf=\(planted)", token: plantedToken)
        #expect(signedIn == 303)
        #expect(headers["set-cookie"]?.contains("__Host-portico_session=") == true)
    }
}

/// The sign-in form's CSRF token without a pending request, as the provider computes it.
enum CSRFTestToken {
    static func make(secret: String) -> String {
        Base64URL.encode(HMAC.authenticationCode(for: Array("login:-".utf8), key: Array(secret.utf8)))
    }
}
