import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@Suite struct ResourceEndpointTests {
    private func accessToken(
        _ harness: ProviderHarness, user: UserRecord, scopes: [String]
    ) async throws -> String {
        let client = try harness.addPublicClient()
        return try #require(try await harness.signIn(user, to: client, scopes: scopes).string("access_token"))
    }

    @Test func userinfoReleasesOnlyWhatTheScopesAllow() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let cases: [([String], [String: JSONValue])] = [
                (["openid"], ["sub": .string(user.id)]),
                (
                    ["openid", "email"],
                    ["sub": .string(user.id), "email": .string(user.email), "email_verified": false]
                ),
                (
                    ["openid", "profile"],
                    [
                        "sub": .string(user.id), "user_id": .string(user.id), "name": .string(user.name),
                        "email": .string(user.email),
                    ]
                ),
                (["openid", "postal_code"], ["sub": .string(user.id), "postal_code": "10115"]),
                (["openid", "profile:user_id"], ["sub": .string(user.id), "user_id": .string(user.id)]),
            ]
            for (scopes, expected) in cases {
                let token = try await accessToken(harness, user: user, scopes: scopes)
                let reply = try await harness.resource("/oauth/userinfo", token: token)
                #expect(reply.status == 200)
                #expect(reply.header("Content-Type") == "application/json")
                #expect(reply.header("Cache-Control") == "no-store")
                #expect(reply.json == expected, "\(scopes)")
                let posted = try await harness.request("POST", "/oauth/userinfo", form: [("access_token", token)])
                #expect(posted.json == expected)
            }
        }
    }

    @Test func profileHasLoginWithAmazonsShapeFilteredByScope() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser(postalCode: nil)
            let full = try await accessToken(harness, user: user, scopes: ["profile", "postal_code"])
            #expect(
                try await harness.resource("/user/profile", token: full).json == [
                    "user_id": .string(user.id), "name": .string(user.name), "email": .string(user.email),
                ])
            let idOnly = try await accessToken(harness, user: user, scopes: ["profile:user_id"])
            #expect(try await harness.resource("/user/profile", token: idOnly).json == ["user_id": .string(user.id)])
            let openIDOnly = try await accessToken(harness, user: user, scopes: ["openid", "email"])
            let refused = try await harness.resource("/user/profile", token: openIDOnly)
            #expect(refused.status == 403)
            #expect(refused.string("error") == "insufficient_scope")
            #expect(refused.header("WWW-Authenticate")?.contains(#"error="insufficient_scope""#) == true)
        }
    }

    @Test func userinfoNeedsOpenID() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let token = try await accessToken(harness, user: user, scopes: ["profile"])
            let reply = try await harness.resource("/oauth/userinfo", token: token)
            #expect(reply.status == 403)
            #expect(reply.header("WWW-Authenticate")?.contains(#"scope="openid""#) == true)
        }
    }

    @Test func missingMalformedAndForeignTokensAre401WithAChallenge() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let token = try await accessToken(harness, user: user, scopes: ["openid", "profile"])
            let missing = try await harness.request("GET", "/oauth/userinfo")
            #expect(missing.status == 401)
            #expect(missing.header("WWW-Authenticate") == #"Bearer realm="portico""#)
            let idToken = try #require(
                try await harness.signIn(user, to: try harness.addPublicClient(), scopes: ["openid"]).string("id_token")
            )
            let foreignKey = try PorticoCrypto.SigningKey.generate(.es256)
            let forged = JWS.sign(
                claims: JWTClaims(
                    issuer: harness.issuer, subject: user.id, expiresAt: Date().addingTimeInterval(600),
                    issuedAt: Date(), jwtID: "x", additionalClaims: ["client_id": "c", "scope": "openid"]),
                key: foreignKey, type: "at+jwt")
            for bad in ["garbage", "a.b.c", idToken, forged, String(repeating: "x", count: 20_000)] {
                for path in ["/oauth/userinfo", "/user/profile"] {
                    let reply = try await harness.resource(path, token: bad)
                    #expect(reply.status == 401, "\(path)")
                    #expect(reply.string("error") == "invalid_token")
                    #expect(reply.header("WWW-Authenticate")?.contains(#"error="invalid_token""#) == true)
                }
            }
            let basic = try await harness.request(
                "GET", "/user/profile", headers: ["Authorization": "Basic dXNlcjpwYXNz"])
            #expect(basic.status == 401)
            let twice = try await harness.request(
                "POST", "/oauth/userinfo", form: [("access_token", token)],
                headers: ["Authorization": "Bearer \(token)"])
            #expect(twice.status == 400)
            #expect(twice.string("error") == "invalid_request")
        }
    }

    @Test func theBearerSchemeIgnoresCaseAndFormsMayNameACharset() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let token = try await accessToken(harness, user: user, scopes: ["openid"])
            let lowercase = try await harness.request(
                "GET", "/oauth/userinfo", headers: ["Authorization": "bearer  \(token) "])
            #expect(lowercase.status == 200)
            let posted = try await harness.request(
                "POST", "/oauth/userinfo",
                headers: ["Content-Type": "Application/X-WWW-Form-URLEncoded; charset=UTF-8"],
                rawBody: "access_token=\(token)")
            #expect(posted.status == 200)
            #expect(posted.json["sub"] == .string(user.id))
        }
    }

    @Test func disabledAndDeletedAccountsAndExpiredTokensAre401() async throws {
        let clock = TestClock()
        try await ProviderHarness.with(clock: clock) { harness in
            let user = try harness.addUser()
            let token = try await accessToken(harness, user: user, scopes: ["openid", "profile"])
            #expect(try await harness.resource("/oauth/userinfo", token: token).status == 200)
            var disabled = user
            disabled.isDisabled = true
            try harness.store.update(disabled)
            #expect(try await harness.resource("/oauth/userinfo", token: token).status == 401)
            #expect(try await harness.resource("/user/profile", token: token).status == 401)
            try harness.store.update(user)
            #expect(try await harness.resource("/user/profile", token: token).status == 200)

            clock.advance(by: 3600 + 10)
            let expired = try await harness.resource("/oauth/userinfo", token: token)
            #expect(expired.status == 401)
            #expect(expired.string("error") == "invalid_token")

            let fresh = try await accessToken(harness, user: user, scopes: ["openid"])
            try harness.store.deleteUser(id: user.id)
            #expect(try await harness.resource("/oauth/userinfo", token: fresh).status == 401)
        }
    }
}
