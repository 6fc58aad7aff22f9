import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// Two nodes on one database, one of which has not reloaded its keys since `portico keys rotate`
/// (its next refresh is far off here) and the new key's time to sign has come: a token the other
/// node signed with the new key verifies there at once, because an unknown `kid` makes a node read the keys again.
@Suite(.serialized) struct NodeKeyLagTests {
    @Test func aTokenSignedWithAKeyThisNodeHasNotLoadedYetVerifies() async throws {
        try await ProviderHarness.with(configuration: .testing { $0.keyRefreshInterval = .seconds(3600) }) {
            harness in
            let client = try harness.addConfidentialClient(grants: ["client_credentials"], introspection: true)
            let credentials = ClientCredentials.of(client)
            let rotated = try PorticoProcess.run(["keys", "rotate", "--json", "--database", harness.databaseURL])
            #expect(rotated.status == 0, "\(rotated.stderr)")
            // A rotated key is published first and signs once the JWKS cache lifetime has passed
            // (605 s); move past that, but not past this node's next key refresh (3600 s).
            harness.clock.advance(by: 700)

            // A second node on the same database and issuer, started after the rotation.
            var configuration = harness.configuration
            configuration.issuer = harness.issuer
            let store = try openStore(url: harness.databaseURL, longRunning: true)
            let other = try IdentityProvider(configuration: configuration, store: store)
            try other.start()
            defer { other.shutdown() }
            let secret = ProviderHarness.formEncode(ProviderHarness.confidentialSecret)
            let basic = Data("\(ProviderHarness.formEncode(client.id)):\(secret)".utf8)
            let issued = try RawHTTPClient.send(
                port: other.port, method: "POST", path: "/oauth/token",
                headers: [
                    "Authorization": "Basic \(basic.base64EncodedString())",
                    "Content-Type": "application/x-www-form-urlencoded",
                ],
                body: Data("grant_type=client_credentials".utf8))
            #expect(issued.status == 200, "\(issued.text)")
            let token = try #require(issued.string("access_token"))

            // The lagging node has not reloaded (its JWKS lacks the new key) ...
            let header = try #require(token.split(separator: ".").first.flatMap { Base64URL.decode($0) })
            let kid = try #require(JSONValue(parsing: header)?.objectValue?["kid"]?.stringValue)
            let before = try await harness.request("GET", "/oauth/jwks")
            #expect(!before.text.contains(kid))
            // ... yet accepts the token, and publishes the new key from then on.
            let introspection = try await harness.introspect(token, client: credentials)
            #expect(introspection.json["active"] == .bool(true), "\(introspection.text)")
            #expect(try await harness.request("GET", "/oauth/jwks").text.contains(kid))
        }
    }
}
