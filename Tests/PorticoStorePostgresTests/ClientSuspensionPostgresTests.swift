import Foundation
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer
@testable import PorticoStorePostgres

/// `portico client suspend` on PostgreSQL, made through another connection as another node or
/// the command line would: a node whose standing cache already holds the token's standing
/// refuses it soon after (version 19's trigger), and takes it back on resume.
@Suite(TestServer.required) struct ClientSuspensionPostgresTests {
    @Test func aSuspensionElsewhereReachesANodeThatCachedTheStanding() async throws {
        let database = try TemporaryDatabase()
        try await ProviderHarness.with(database: .postgres(url: database.url)) { harness in
            let served = try #require(harness.provider.context.store as? PostgresStore)
            try await waitUntil("the feed listens") { served.standingGeneration != nil }
            let user = try harness.addUser()
            let app = try harness.addConfidentialClient()
            let server = try harness.addConfidentialClient(introspection: true)
            let token = try #require(
                try await harness.signIn(user, to: app, scopes: ["openid", "profile"]).string("access_token"))
            #expect(try await harness.resource("/oauth/userinfo", token: token).status == 200)
            #expect(try await harness.resource("/oauth/userinfo", token: token).status == 200)

            try ClientStandingChange.suspend.apply(toClient: app.id, in: harness.store)
            try await waitUntil("the suspension is seen", timeout: .seconds(5)) {
                (try? await harness.resource("/oauth/userinfo", token: token).status) == 401
            }
            #expect(try await harness.introspect(token, client: .of(server)).json == ["active": false])

            try ClientStandingChange.resume.apply(toClient: app.id, in: harness.store)
            try await waitUntil("the resumption is seen") {
                (try? await harness.resource("/oauth/userinfo", token: token).status) == 200
            }
        }
    }
}
