import Foundation
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer
@testable import PorticoStorePostgres

/// The node-local standing cache on PostgreSQL (schema version 13's notifications): userinfo
/// answers from memory, yet a revocation through this node is seen by the very next request, a
/// change made elsewhere soon after, and nothing is cached while the listener is away.
@Suite(TestServer.required) struct StandingCacheTests {
    /// The provider on a fresh database, with metrics on, once its feed listens.
    private func withProvider(
        _ body: (ProviderHarness, PostgresStore, TemporaryDatabase) async throws -> Void
    ) async throws {
        let database = try TemporaryDatabase()
        try await ProviderHarness.with(
            database: .postgres(url: database.url), configuration: .testing { $0.metrics = true }
        ) { harness in
            let served = try #require(harness.provider.context.store as? PostgresStore)
            try await waitUntil("the feed listens") { served.standingGeneration != nil }
            try await body(harness, served, database)
        }
    }

    /// One unlabelled sample of `/metrics`.
    private func metric(_ harness: ProviderHarness, _ name: String) async throws -> Double {
        let reply = try await harness.request("GET", "/metrics")
        let line = try #require(reply.text.split(separator: "\n").first { $0.hasPrefix(name + " ") })
        return try #require(Double(line.dropFirst(name.count + 1)))
    }

    private func userinfo(_ harness: ProviderHarness, _ token: String) async throws -> Int {
        try await harness.resource("/oauth/userinfo", token: token).status
    }

    @Test func aRevocationThroughThisNodeIsSeenByTheNextRequest() async throws {
        try await withProvider { harness, _, _ in
            let user = try harness.addUser()
            let client = try harness.addConfidentialClient()
            let credentials = ClientCredentials.of(client)
            let token = try #require(
                try await harness.signIn(user, to: client, scopes: ["openid", "profile"]).string("access_token"))
            #expect(try await userinfo(harness, token) == 200)
            let hits = try await metric(harness, "portico_standing_cache_hits_total")
            #expect(try await userinfo(harness, token) == 200)
            #expect(try await harness.resource("/user/profile", token: token).status == 200)
            #expect(try await metric(harness, "portico_standing_cache_hits_total") >= hits + 2)

            let revoked = try await harness.request(
                "POST", "/oauth/revoke", form: [("token", token)], client: credentials)
            #expect(revoked.status == 200)
            #expect(try await userinfo(harness, token) == 401)
            #expect(try await harness.resource("/user/profile", token: token).status == 401)
            let posted = try await harness.request(
                "POST", "/oauth/userinfo", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                rawBody: "access_token=\(token)")
            #expect(posted.status == 401)
        }
    }

    @Test func removingTheAppInYourAccountIsSeenByTheNextRequest() async throws {
        try await withProvider { harness, _, _ in
            _ = try harness.addUser()
            let client = try harness.addConfidentialClient()
            let browser = harness.browser()
            let pkce = PKCEPair()
            let done = try await browser.authorizeWithConsent(client: client, pkce: pkce)
            let code = try #require(done.redirectParameters["code"])
            let tokens = try await harness.token(
                [
                    ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", client.redirectURIs[0]),
                    ("code_verifier", pkce.verifier),
                ], client: .of(client))
            let token = try #require(tokens.string("access_token"))
            #expect(try await userinfo(harness, token) == 200)
            #expect(try await userinfo(harness, token) == 200)

            let page = try await browser.get("/account")
            let csrf = try #require(page.hiddenField("csrf_token"))
            let removed = try await browser.post("/account", [("csrf_token", csrf), ("revoke", client.id)])
            #expect(removed.status == 303)
            #expect(try await userinfo(harness, token) == 401)
        }
    }

    @Test func aChangeMadeElsewhereIsSeenSoon() async throws {
        try await withProvider { harness, _, _ in
            let user = try harness.addUser()
            let client = try harness.addPublicClient()
            let signedIn = try await harness.signIn(user, to: client, scopes: ["openid"])
            let token = try #require(signedIn.string("access_token"))
            #expect(try await userinfo(harness, token) == 200)
            let hits = try await metric(harness, "portico_standing_cache_hits_total")
            #expect(try await userinfo(harness, token) == 200)
            #expect(try await metric(harness, "portico_standing_cache_hits_total") > hits)

            // The harness's own store is another pool of connections, as another node or
            // `portico user disable` would be: seen within the notification latency.
            var disabled = user
            disabled.isDisabled = true
            try harness.store.update(disabled)
            // Half the cache's maximum age: it is the notification, not the age, that must do it.
            try await waitUntil("userinfo refuses the disabled account", timeout: .seconds(5)) {
                try await userinfo(harness, token) == 401
            }
        }
    }

    @Test func withoutTheListenerNothingIsCachedAndCachingResumesAfter() async throws {
        try await withProvider { harness, served, database in
            let user = try harness.addUser()
            let client = try harness.addPublicClient()
            let signedIn = try await harness.signIn(user, to: client, scopes: ["openid"])
            let token = try #require(signedIn.string("access_token"))
            #expect(try await userinfo(harness, token) == 200)
            #expect(try await userinfo(harness, token) == 200)

            served.listener.reconnects.store(false, ordering: .releasing)
            let admin = try TestServer.connection()
            let terminated = try admin.scalar(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                    + "WHERE application_name = $1 AND datname = $2",
                [.text(PostgresChangeListener.applicationName), .text(database.name)])
            #expect(terminated != "0")
            try await waitUntil("the feed is down") { served.standingGeneration == nil }
            #expect(try await metric(harness, "portico_standing_cache_live") == 0)

            // Nobody hears this change now, yet the very next request sees it: nothing is cached.
            var disabled = user
            disabled.isDisabled = true
            try harness.store.update(disabled)
            #expect(try await userinfo(harness, token) == 401)
            try harness.store.update(user)
            #expect(try await userinfo(harness, token) == 200)
            let hits = try await metric(harness, "portico_standing_cache_hits_total")
            #expect(try await userinfo(harness, token) == 200)
            #expect(try await metric(harness, "portico_standing_cache_hits_total") == hits)

            served.listener.reconnects.store(true, ordering: .releasing)
            try await waitUntil("the feed listens again") { served.standingGeneration != nil }
            #expect(try await userinfo(harness, token) == 200)
            #expect(try await userinfo(harness, token) == 200)
            #expect(try await metric(harness, "portico_standing_cache_hits_total") > hits)
        }
    }

    @Test func refreshRotationsDoNotFlushTheCache() async throws {
        try await withProvider { harness, _, _ in
            let user = try harness.addUser()
            let client = try harness.addPublicClient()
            let credentials = ClientCredentials.of(client)
            let reply = try await harness.signIn(user, to: client, scopes: ["openid"])
            let token = try #require(reply.string("access_token"))
            var refreshToken = try #require(reply.string("refresh_token"))
            #expect(try await userinfo(harness, token) == 200)
            #expect(try await userinfo(harness, token) == 200)
            let flushes = try await metric(harness, "portico_standing_cache_flushes_total")
            let hits = try await metric(harness, "portico_standing_cache_hits_total")
            for _ in 0..<3 {
                refreshToken = try #require(
                    try await harness.refresh(refreshToken, client: credentials).string("refresh_token"))
            }
            #expect(try await userinfo(harness, token) == 200)
            #expect(try await metric(harness, "portico_standing_cache_hits_total") > hits)
            #expect(try await metric(harness, "portico_standing_cache_flushes_total") == flushes)
        }
    }
}
