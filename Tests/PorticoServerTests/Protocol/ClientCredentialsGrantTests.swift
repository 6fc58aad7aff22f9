import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@Suite struct ClientCredentialsGrantTests {
    private static let grants = ["client_credentials"]

    @Test func aConfidentialClientGetsATokenForItsProductScopes() async throws {
        try await ProviderHarness.with { harness in
            try harness.store.insert(ProductScope(name: "orders:read", description: "See your orders"))
            try harness.store.insert(ProductScope(name: "orders:write", description: "Change your orders"))
            let client = try harness.addConfidentialClient(
                scopes: ["openid", "profile", "orders:read", "orders:write"], grants: Self.grants, introspection: true)
            let credentials = ClientCredentials.of(client)

            let all = try await harness.token([("grant_type", "client_credentials")], client: credentials)
            #expect(all.status == 200, "\(all.text)")
            #expect(all.string("scope") == "orders:read orders:write")
            #expect(all.string("refresh_token") == nil)
            #expect(all.string("id_token") == nil)
            let accessToken = try #require(all.string("access_token"))
            let claims = try (try await harness.jwksVerifier()).verify(
                accessToken, algorithms: [.es256], type: "at+jwt"
            )
            .claims()
            #expect(claims.subject == client.id)
            #expect(claims["client_id"] == .string(client.id))
            #expect(claims["auth_time"] == nil)

            let one = try await harness.token(
                [("grant_type", "client_credentials"), ("scope", "orders:read")],
                client: .post(id: client.id, secret: "s3cret: with &/+=% and ü"))
            #expect(one.string("scope") == "orders:read")

            let introspected = try await harness.introspect(accessToken, client: credentials).json
            #expect(introspected["active"] == true)
            #expect(introspected["sub"] == .string(client.id))

            // A token without a person opens neither resource endpoint.
            #expect(try await harness.resource("/oauth/userinfo", token: accessToken).status == 403)
            #expect(try await harness.resource("/user/profile", token: accessToken).status == 403)
        }
    }

    @Test func userScopesAndScopesNotAllowedAreInvalidScope() async throws {
        try await ProviderHarness.with { harness in
            let client = try harness.addConfidentialClient(scopes: ["openid", "orders:read"], grants: Self.grants)
            let credentials = ClientCredentials.of(client)
            for scope in ["openid", "profile", "orders:read openid", "orders:write", "nonsense"] {
                let reply = try await harness.token(
                    [("grant_type", "client_credentials"), ("scope", scope)], client: credentials)
                #expect(reply.status == 400)
                #expect(reply.string("error") == "invalid_scope", "\(scope)")
            }
        }
    }

    @Test func publicClientsCannotUseIt() async throws {
        try await ProviderHarness.with { harness in
            let client = try harness.addPublicClient(grants: Self.grants)
            let reply = try await harness.token(
                [("grant_type", "client_credentials")], client: ClientCredentials.of(client))
            #expect(reply.status == 400)
            #expect(reply.string("error") == "unauthorized_client")
        }
    }
}
