import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@Suite struct RevocationIntrospectionTests {
    @Test func revokingAnAccessTokenMakesItInactiveEverywhere() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let client = try harness.addConfidentialClient(introspection: true)
            let credentials = ClientCredentials.of(client)
            let reply = try await harness.signIn(user, to: client, scopes: ["openid", "profile"])
            let accessToken = try #require(reply.string("access_token"))
            let refreshToken = try #require(reply.string("refresh_token"))

            let active = try await harness.introspect(accessToken, client: credentials).json
            #expect(active["active"] == true)
            #expect(active["scope"] == "openid profile")
            #expect(active["client_id"] == .string(client.id))
            #expect(active["sub"] == .string(user.id))
            #expect(active["token_type"] == "Bearer")
            #expect(active["iss"] == .string(harness.issuer))
            #expect(active["exp"]?.integerValue != nil)
            #expect(active["iat"]?.integerValue != nil)
            #expect(try await harness.resource("/oauth/userinfo", token: accessToken).status == 200)

            let revoked = try await harness.request(
                "POST", "/oauth/revoke", form: [("token", accessToken), ("token_type_hint", "refresh_token")],
                client: credentials)
            #expect(revoked.status == 200)
            #expect(try await harness.introspect(accessToken, client: credentials).json == ["active": false])
            let userinfo = try await harness.resource("/oauth/userinfo", token: accessToken)
            #expect(userinfo.status == 401)
            #expect(userinfo.string("error") == "invalid_token")
            // The refresh token is another grant artifact and still works.
            #expect(try await harness.refresh(refreshToken, client: credentials).status == 200)
        }
    }

    @Test func revokingARefreshTokenRevokesItsFamily() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let client = try harness.addPublicClient()
            let credentials = ClientCredentials.of(client)
            let reply = try await harness.signIn(user, to: client, scopes: ["profile"])
            let original = try #require(reply.string("refresh_token"))
            let current = try #require(try await harness.refresh(original, client: credentials).string("refresh_token"))
            let revoked = try await harness.request(
                "POST", "/oauth/revoke", form: [("token", original), ("token_type_hint", "access_token")],
                client: credentials)
            #expect(revoked.status == 200)
            #expect(try await harness.refresh(current, client: credentials).string("error") == "invalid_grant")
        }
    }

    @Test func unknownRevokedAndOtherClientsTokensAnswer200WithoutEffect() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let client = try harness.addConfidentialClient(introspection: true)
            let other = try harness.addConfidentialClient()
            let credentials = ClientCredentials.of(client)
            let reply = try await harness.signIn(user, to: client, scopes: ["openid"])
            let accessToken = try #require(reply.string("access_token"))
            let refreshToken = try #require(reply.string("refresh_token"))

            for token in [accessToken, refreshToken] {
                let foreign = try await harness.request(
                    "POST", "/oauth/revoke", form: [("token", token)], client: ClientCredentials.of(other))
                #expect(foreign.status == 200)
            }
            #expect(try await harness.introspect(accessToken, client: credentials).json["active"] == true)
            #expect(try await harness.introspect(refreshToken, client: credentials).json["active"] == true)

            for token in ["unknown", "a.b.c", SecureRandom.token()] {
                let reply = try await harness.request(
                    "POST", "/oauth/revoke", form: [("token", token)], client: credentials)
                #expect(reply.status == 200)
            }
            for _ in 0..<2 {
                let reply = try await harness.request(
                    "POST", "/oauth/revoke", form: [("token", refreshToken)], client: credentials)
                #expect(reply.status == 200)
            }
            #expect(try await harness.introspect(refreshToken, client: credentials).json == ["active": false])

            let noToken = try await harness.request("POST", "/oauth/revoke", form: [], client: credentials)
            #expect(noToken.string("error") == "invalid_request")
            let wrongSecret = try await harness.request(
                "POST", "/oauth/revoke", form: [("token", accessToken)], client: .basic(id: client.id, secret: "no"))
            #expect(wrongSecret.status == 401)
        }
    }

    @Test func introspectionIsForConfidentialClientsAndSaysLittleAboutDeadTokens() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let client = try harness.addConfidentialClient(introspection: true)
            let resourceServer = try harness.addConfidentialClient(grants: ["client_credentials"], introspection: true)
            let publicClient = try harness.addPublicClient()
            let reply = try await harness.signIn(user, to: client, scopes: ["openid"])
            let accessToken = try #require(reply.string("access_token"))
            let refreshToken = try #require(reply.string("refresh_token"))

            let byPublic = try await harness.introspect(accessToken, client: ClientCredentials.of(publicClient))
            #expect(byPublic.status == 401)
            #expect(byPublic.string("error") == "invalid_client")
            let unauthenticated = try await harness.introspect(accessToken, client: .none)
            #expect(unauthenticated.status == 401)

            // A resource server may introspect access tokens, but not other clients' refresh tokens.
            let resource = ClientCredentials.of(resourceServer)
            #expect(try await harness.introspect(accessToken, client: resource).json["active"] == true)
            #expect(try await harness.introspect(refreshToken, client: resource).json == ["active": false])

            for token in ["garbage", "a.b.c", SecureRandom.token(), reply.string("id_token") ?? ""] {
                let dead = try await harness.introspect(token, client: ClientCredentials.of(client))
                #expect(dead.status == 200)
                #expect(dead.json == ["active": false])
                #expect(dead.header("Cache-Control") == "no-store")
            }
        }
    }
}
