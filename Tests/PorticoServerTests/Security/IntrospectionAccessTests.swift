import Foundation
import PorticoStore
import PorticoTesting
import Testing

/// Only resource servers (`client add --introspection`) may ask `/oauth/introspect` about
/// tokens: any other app holding someone's token must not learn whose it is (RFC 7662 §4).
@Suite struct IntrospectionAccessTests {
    @Test func anAppThatIsNotAResourceServerIsForbiddenAndBadCredentialsAreUnauthorized() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let app = try harness.addConfidentialClient()
            let resourceServer = try harness.addClient(
                name: "Orders API", secret: "rs-secret", grants: ["client_credentials"], introspection: true)
            let tokens = try await harness.signIn(user, to: app, scopes: ["openid", "profile"])
            let accessToken = try #require(tokens.string("access_token"))

            // The app authenticates fine but is not allowed the call: 403, not a fake "inactive".
            let forbidden = try await harness.introspect(accessToken, client: .of(app))
            #expect(forbidden.status == 403)
            #expect(forbidden.string("error") == "unauthorized_client")
            #expect(forbidden.json["sub"] == nil)
            #expect(forbidden.json["active"] == nil)

            // Wrong credentials stay a 401 invalid_client, as at the token endpoint.
            let wrong = try await harness.introspect(
                accessToken, client: .basic(id: resourceServer.id, secret: "not-it"))
            #expect(wrong.status == 401)
            #expect(wrong.string("error") == "invalid_client")

            let allowed = try await harness.introspect(
                accessToken, client: .basic(id: resourceServer.id, secret: "rs-secret"))
            #expect(allowed.status == 200)
            #expect(allowed.json["active"] == true)
            #expect(allowed.json["sub"] != nil)
        }
    }

    @Test func clientAddIntrospectionMarksAResourceServer() throws {
        let database = try CLIDatabase()
        let added = try database.portico([
            "client", "add", "--name", "Orders API", "--grant", "client_credentials", "--introspection", "--json",
        ])
        #expect(added.status == 0, "\(added.stderr)")
        let plain = try database.portico([
            "client", "add", "--name", "Shop", "--redirect-uri", "https://shop.example/cb", "--json",
        ])
        let store = try openStore(url: database.url)
        defer { store.close() }
        let clients = try store.clients()
        #expect(clients.first { $0.name == "Orders API" }?.mayIntrospect == true)
        #expect(clients.first { $0.name == "Shop" }?.mayIntrospect == false)
        #expect(plain.status == 0)
        let help = try PorticoProcess.run(["client", "add", "--help"])
        #expect(help.stdout.contains("--introspection"))
        #expect(help.stdout.contains("--jwks FILE"))
    }
}
