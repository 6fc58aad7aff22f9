import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer
@testable import PorticoStorePostgres

/// The developer console on PostgreSQL (schema 21): an app made in the console, its secret
/// rotated with the 24-hour overlap, and its removal by another connection (the command line)
/// reaching a node that cached its token's standing (schema 21's delete trigger).
@Suite(TestServer.required) struct DeveloperConsolePostgresTests {
    @Test func rotationOverlapAndRemovalWork() async throws {
        let database = try TemporaryDatabase()
        try await ProviderHarness.with(database: .postgres(url: database.url)) { harness in
            let served = try #require(harness.provider.context.store as? PostgresStore)
            try await waitUntil("the feed listens") { served.standingGeneration != nil }
            let user = try harness.addUser()
            let browser = TestBrowser(base: harness.base)
            let login = try await browser.get("/login?return_to=%2Fdeveloper")
            _ = try await browser.post(
                "/login",
                [
                    ("csrf_token", try #require(login.hiddenField("csrf_token"))), ("email", user.email),
                    ("password", ProviderHarness.defaultPassword), ("return_to", "/developer"),
                ])
            let terms = try await browser.get("/developer")
            let csrf = try #require(terms.hiddenField("csrf_token"))
            #expect(
                try await browser.post("/developer", [("csrf_token", csrf), ("accept_terms", "yes")]).status == 303)
            let created = try await browser.post(
                "/developer/apps/new",
                [
                    ("csrf_token", csrf), ("name", "Postgres App"), ("app_type", "web"),
                    ("redirect_uri", "https://app.example/callback"),
                ])
            let location = try #require(created.location)
            let id = String(location.dropFirst("/developer/apps/".count))
            func secret(_ page: TestReply) -> String? {
                guard let start = page.text.range(of: #"id="client-secret">"#) else { return nil }
                return String(page.text[start.upperBound...].prefix { $0 != "<" })
            }
            let first = try #require(secret(try await browser.get(location)))
            let rotated = try await browser.post(location, [("csrf_token", csrf), ("action", "rotate_secret")])
            let rotatedLocation = try #require(rotated.location)
            let second = try #require(secret(try await browser.get(rotatedLocation)))
            let client = try #require(try harness.store.client(id: id))
            #expect(try harness.store.read { try $0.developerApps(userID: user.id) }.map(\.clientID) == [id])

            _ = try await harness.signIn(
                user, to: client, scopes: ["openid"], credentials: .basic(id: id, secret: first))
            harness.clock.advance(by: 24 * 60 * 60 + 60)
            let late = try await harness.redeem(
                try harness.issueCode(for: client, user: user, scopes: ["openid"]),
                client: .basic(id: id, secret: first))
            #expect(late.status == 401)
            let tokens = try await harness.signIn(
                user, to: client, scopes: ["openid", "profile"], credentials: .basic(id: id, secret: second))
            let token = try #require(tokens.string("access_token"))
            #expect(try await harness.resource("/oauth/userinfo", token: token).status == 200)
            #expect(try await harness.resource("/oauth/userinfo", token: token).status == 200)

            _ = try ClientRemoval.remove(id: id, from: harness.store)
            try await waitUntil("the removal is seen", timeout: .seconds(5)) {
                (try? await harness.resource("/oauth/userinfo", token: token).status) == 401
            }
        }
    }
}
