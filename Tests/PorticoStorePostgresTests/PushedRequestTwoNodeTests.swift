import Foundation
import PorticoCrypto
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

/// Pushed authorization requests (RFC 9126) on two providers on one PostgreSQL database, as two
/// nodes behind a load balancer: a request pushed to one node is taken at the other, once — the
/// same `request_uri` at the first node afterwards is refused.
@Suite(TestServer.required) struct PushedRequestTwoNodeTests {
    @Test func aRequestPushedAtOneNodeIsTakenOnceAtEither() async throws {
        let database = try TemporaryDatabase()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("portico-par-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = ProviderConfiguration.testing { configuration in
            configuration.issuer = "http://127.0.0.1:1"
            configuration.keyFile = directory.appendingPathComponent("signing.key").path
            configuration.outboxDirectory = directory.appendingPathComponent("outbox").path
        }
        let store = try database.store()
        defer { store.close() }
        let first = try IdentityProvider(configuration: configuration, store: try database.store())
        try first.start()
        defer { first.shutdown() }
        let second = try IdentityProvider(configuration: configuration, store: try database.store())
        try second.start()
        defer { second.shutdown() }

        var client = Client(
            name: "App", type: .confidential, secret: "s3cret", redirectURIs: ["https://app.example/cb"],
            allowedScopes: ["openid"])
        client.requiresPAR = true
        try store.insert(client)
        #expect(try store.client(id: client.id)?.requiresPAR == true)

        let form = [
            ("response_type", "code"), ("redirect_uri", "https://app.example/cb"), ("scope", "openid"),
            ("code_challenge", PKCE.challenge(for: PKCE.makeVerifier())), ("code_challenge_method", "S256"),
        ]
        let pushed = try RawHTTPClient.send(
            port: first.port, method: "POST", path: "/oauth/par",
            headers: [
                "Content-Type": "application/x-www-form-urlencoded",
                "Authorization": "Basic " + Data("\(client.id):s3cret".utf8).base64EncodedString(),
            ],
            body: Data(ProviderHarness.formEncode(form).utf8))
        #expect(pushed.status == 201, "\(pushed.text)")
        let requestURI = try #require(pushed.string("request_uri"))
        var components = URLComponents()
        components.path = "/oauth/authorize"
        components.queryItems = [
            URLQueryItem(name: "client_id", value: client.id), URLQueryItem(name: "request_uri", value: requestURI),
        ]
        let path = try #require(components.string)
        let taken = try RawHTTPClient.send(port: second.port, method: "GET", path: path, headers: [:], body: nil)
        #expect(taken.status == 302, "\(taken.text)")
        #expect(taken.location?.hasPrefix("/login") == true)
        let again = try RawHTTPClient.send(port: first.port, method: "GET", path: path, headers: [:], body: nil)
        #expect(again.status == 400)
        #expect(again.location == nil)
    }
}
