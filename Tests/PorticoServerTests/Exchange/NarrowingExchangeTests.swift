import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// Narrowing an access token by token exchange (RFC 8693), and resource indicators (RFC 8707)
/// at the token endpoint, over real HTTP.
@Suite("Narrowing exchange and resource indicators") struct NarrowingExchangeTests {
    static let orders = "https://orders.example/api"
    static let payments = "https://payments.example/api"

    /// A confidential client allowed the orders API, and a person signed in to it.
    private func signedIn(_ harness: ProviderHarness, resources: [String] = [orders]) async throws -> (
        Client, UserRecord, TestReply
    ) {
        let user = try harness.addUser()
        let client = try harness.addExchangeClient(
            name: "Shop backend", group: nil, scopes: ["openid", "profile", "email"], resources: resources,
            introspection: true)
        let code = try harness.issueExchangeCode(for: client, user: user, scopes: ["openid", "profile", "email"])
        let reply = try await harness.redeem(code, client: harness.exchangeCredentials(client))
        try #require(reply.status == 200, "\(reply.text)")
        return (client, user, reply)
    }

    private func narrow(
        _ harness: ProviderHarness, _ client: Client, _ token: String, resource: String? = nil,
        audience: String? = nil, scope: String? = nil, actor: String? = nil
    ) async throws -> TestReply {
        try await harness.exchange(
            as: client, subjectToken: token, subjectTokenType: ExchangeURI.accessToken, actorToken: actor,
            actorTokenType: actor == nil ? nil : ExchangeURI.accessToken, audience: audience, resource: resource,
            scope: scope)
    }

    @Test("a confidential client narrows its access token to fewer scopes and one resource server")
    func narrowsScopeAndAudience() async throws {
        try await ProviderHarness.with { harness in
            let (client, user, signIn) = try await signedIn(harness)
            let subject = try #require(signIn.string("access_token"))
            let reply = try await narrow(harness, client, subject, resource: Self.orders, scope: "profile")
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.string("issued_token_type") == ExchangeURI.accessToken)
            #expect(reply.string("token_type") == "Bearer")
            #expect(reply.string("scope") == "profile")
            #expect(reply.json["refresh_token"] == nil)
            #expect(reply.json["id_token"] == nil)
            let narrowed = try #require(reply.string("access_token"))
            let claims = try await harness.claims(of: narrowed)
            let original = try await harness.claims(of: subject)
            #expect(claims.audience == [Self.orders])
            #expect(claims.subject == user.id)
            #expect(claims["client_id"]?.stringValue == client.id)
            #expect(try #require(claims.expiresAt) <= (try #require(original.expiresAt)))
            #expect(claims.jwtID != original.jwtID)
            // Meant for the orders API, so the provider's own endpoints refuse it...
            #expect(try await harness.resource("/oauth/userinfo", token: narrowed).status == 401)
            // ...while the resource server's introspection sees it active, with its audience.
            let introspected = try await harness.introspect(narrowed, client: harness.exchangeCredentials(client))
            #expect(introspected.json["active"] == .bool(true))
            #expect(introspected.json["aud"] == .array([.string(Self.orders)]))
            // Narrowing only scope keeps the provider as audience.
            let scoped = try await narrow(harness, client, subject, scope: "openid")
            #expect(
                try await harness.claims(of: try #require(scoped.string("access_token"))).audience == [harness.issuer])
        }
    }

    @Test("asking for more than the subject token had is refused")
    func neverWidens() async throws {
        try await ProviderHarness.with { harness in
            let (client, _, signIn) = try await signedIn(harness, resources: [Self.orders, Self.payments])
            let subject = try #require(signIn.string("access_token"))
            #expect(try await narrow(harness, client, subject, scope: "openid offline_access").error == "invalid_scope")
            let narrowed = try #require(
                try await narrow(harness, client, subject, resource: Self.orders)
                    .string("access_token"))
            #expect(try await narrow(harness, client, narrowed, resource: Self.payments).error == "invalid_target")
            #expect(try await narrow(harness, client, narrowed, audience: harness.issuer).error == "invalid_target")
            #expect(try await narrow(harness, client, narrowed, resource: Self.orders).status == 200)
            #expect(try await narrow(harness, client, narrowed).status == 200)
        }
    }

    @Test("a resource not registered for the client, or malformed, is invalid_target")
    func unregisteredResource() async throws {
        try await ProviderHarness.with { harness in
            let (client, _, signIn) = try await signedIn(harness)
            let subject = try #require(signIn.string("access_token"))
            #expect(try await narrow(harness, client, subject, resource: Self.payments).error == "invalid_target")
            let fragment = try await narrow(harness, client, subject, resource: Self.orders + "#x")
            #expect(fragment.error == "invalid_target")
            #expect(fragment.string("error_description")?.contains("absolute URI without a fragment") == true)
            #expect(try await narrow(harness, client, subject, resource: "not a uri").error == "invalid_target")
            #expect(
                try await narrow(harness, client, subject, resource: Self.orders, audience: Self.payments).error
                    == "invalid_target")
        }
    }

    @Test("a product scope's resource may be asked for by clients allowed the scope")
    func productScopeResource() async throws {
        try await ProviderHarness.with { harness in
            try harness.store.insert(
                ProductScope(name: "payments:read", description: "See payments", resource: Self.payments))
            let user = try harness.addUser()
            let client = try harness.addExchangeClient(group: nil, scopes: ["openid", "payments:read"])
            let code = try harness.issueExchangeCode(for: client, user: user, scopes: ["openid", "payments:read"])
            let subject = try #require(
                try await harness.redeem(code, client: harness.exchangeCredentials(client)).string("access_token"))
            let reply = try await narrow(harness, client, subject, resource: Self.payments, scope: "payments:read")
            #expect(reply.status == 200, "\(reply.text)")
            let other = try harness.addExchangeClient(name: "Other", group: nil, scopes: ["openid"])
            let otherCode = try harness.issueExchangeCode(for: other, user: user, scopes: ["openid"])
            let otherToken = try #require(
                try await harness.redeem(otherCode, client: harness.exchangeCredentials(other)).string("access_token"))
            #expect(try await narrow(harness, other, otherToken, resource: Self.payments).error == "invalid_target")
        }
    }

    @Test("only confidential clients narrow, only their own live tokens, without an actor")
    func whoMayNarrow() async throws {
        let clock = TestClock()
        try await ProviderHarness.with(clock: clock) { harness in
            let (client, user, signIn) = try await signedIn(harness)
            let subject = try #require(signIn.string("access_token"))
            let app = try harness.addExchangeClient(name: "Native", group: nil, isPublic: true, scopes: ["openid"])
            let appCode = try harness.issueExchangeCode(for: app, user: user, scopes: ["openid"], now: clock.now)
            let appToken = try #require(try await harness.redeem(appCode, client: .id(app.id)).string("access_token"))
            #expect(try await narrow(harness, app, appToken).error == "unauthorized_client")
            let other = try harness.addExchangeClient(name: "Other", group: nil, scopes: ["openid"])
            #expect(try await narrow(harness, other, subject).error == "invalid_request")
            #expect(try await narrow(harness, client, subject, actor: subject).error == "invalid_request")
            #expect(try await narrow(harness, client, "garbage").error == "invalid_request")
            // An actor_token_type without its token is refused, not ignored.
            let typeOnly = try await harness.exchange(
                as: client, subjectToken: subject, subjectTokenType: ExchangeURI.accessToken,
                actorTokenType: ExchangeURI.accessToken)
            #expect(typeOnly.error == "invalid_request", "\(typeOnly.text)")
            // Revoked.
            let revocable = try #require(try await narrow(harness, client, subject).string("access_token"))
            _ = try await harness.request(
                "POST", "/oauth/revoke", form: [("token", revocable)], client: harness.exchangeCredentials(client))
            #expect(try await narrow(harness, client, revocable).error == "invalid_request")
            // Expired.
            clock.advance(by: 3700)
            #expect(try await narrow(harness, client, subject).error == "invalid_request")
        }
    }

    @Test("resource at the token endpoint puts it in aud; a code bound to one resource keeps it")
    func resourceAtTheTokenEndpoint() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let client = try harness.addExchangeClient(
                group: nil, scopes: ["openid", "profile"], resources: [Self.orders, Self.payments])
            let credentials = harness.exchangeCredentials(client)
            func redeem(_ code: ExchangeCode, resource: String?) async throws -> TestReply {
                var form = [
                    ("grant_type", "authorization_code"), ("code", code.code), ("redirect_uri", code.redirectURI),
                    ("code_verifier", code.verifier),
                ]
                if let resource { form.append(("resource", resource)) }
                return try await harness.token(form, client: credentials)
            }
            let plain = try harness.issueExchangeCode(for: client, user: user, scopes: ["openid"])
            let reply = try await redeem(plain, resource: Self.orders)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(try await harness.claims(of: try #require(reply.string("access_token"))).audience == [Self.orders])
            let unknown = try harness.issueExchangeCode(for: client, user: user, scopes: ["openid"])
            #expect(try await redeem(unknown, resource: "https://unknown.example").error == "invalid_target")

            let bound = try harness.issueExchangeCode(
                for: client, user: user, scopes: ["openid"], resource: Self.orders)
            #expect(try await redeem(bound, resource: Self.payments).error == "invalid_target")
            let bound2 = try harness.issueExchangeCode(
                for: client, user: user, scopes: ["openid"], resource: Self.orders)
            let boundReply = try await redeem(bound2, resource: nil)
            #expect(
                try await harness.claims(of: try #require(boundReply.string("access_token"))).audience == [Self.orders])
            // A refresh may name a resource too.
            let refreshed = try await harness.token(
                [
                    ("grant_type", "refresh_token"), ("refresh_token", try #require(reply.string("refresh_token"))),
                    ("resource", Self.payments),
                ], client: credentials)
            #expect(
                try await harness.claims(of: try #require(refreshed.string("access_token"))).audience
                    == [Self.payments])
        }
    }

    @Test("resource at /oauth/authorize must be registered for the client")
    func resourceAtTheAuthorizationEndpoint() async throws {
        try await ProviderHarness.with { harness in
            let client = try harness.addExchangeClient(group: nil, scopes: ["openid"], resources: [Self.orders])
            func authorize(resource: String) async throws -> TestReply {
                var components = URLComponents()
                components.queryItems = [
                    URLQueryItem(name: "response_type", value: "code"),
                    URLQueryItem(name: "client_id", value: client.id),
                    URLQueryItem(name: "redirect_uri", value: client.redirectURIs[0]),
                    URLQueryItem(name: "scope", value: "openid"), URLQueryItem(name: "state", value: "s"),
                    URLQueryItem(name: "code_challenge", value: PKCE.challenge(for: PKCE.makeVerifier())),
                    URLQueryItem(name: "code_challenge_method", value: "S256"),
                    URLQueryItem(name: "resource", value: resource),
                ]
                return try RawHTTPClient.send(
                    port: harness.port, method: "GET",
                    path: "/oauth/authorize?" + (components.percentEncodedQuery ?? ""),
                    headers: [:], body: nil)
            }
            let refused = try await authorize(resource: Self.payments)
            #expect(refused.status == 302 || refused.status == 303)
            #expect(refused.header("Location")?.contains("error=invalid_target") == true, "\(refused.headers)")
            let accepted = try await authorize(resource: Self.orders)
            #expect(accepted.header("Location")?.contains("error=") != true, "\(accepted.headers)")
        }
    }
}
