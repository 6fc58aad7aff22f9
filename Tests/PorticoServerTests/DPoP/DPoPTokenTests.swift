import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

/// DPoP (RFC 9449) at the token endpoint and the resources, against the real server.
@Suite struct DPoPTokenTests {
    private static func codeForm(_ code: ProviderHarness.IssuedCode) -> [(String, String)] {
        [
            ("grant_type", "authorization_code"), ("code", code.code), ("redirect_uri", code.redirectURI),
            ("code_verifier", code.verifier),
        ]
    }

    @Test func aPublicClientsTokensAreBoundToItsKeyAndUsableOnlyWithIt() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let client = try harness.addPublicClient()
            let key = try DPoPProver()
            let tokenURL = harness.issuer + "/oauth/token"
            let code = try harness.issueCode(for: client, user: user, scopes: ["openid", "profile"])
            let reply = try await harness.token(
                Self.codeForm(code), client: .id(client.id), proof: key.proof("POST", tokenURL))
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.string("token_type") == "DPoP")
            let access = try #require(reply.string("access_token"))
            let refresh = try #require(reply.string("refresh_token"))
            let claims = try (try await harness.jwksVerifier()).verify(access, algorithms: [.es256], type: "at+jwt")
                .claims()
            #expect(claims["cnf"] == ["jkt": .string(try key.thumbprint)])

            // At a resource: only with the DPoP scheme and a fresh proof of the same key.
            let userinfo = harness.issuer + "/oauth/userinfo"
            let good = try await harness.resource(
                "/oauth/userinfo", token: access, proof: key.proof("GET", userinfo, accessToken: access))
            #expect(good.status == 200, "\(good.text)")
            #expect(good.string("sub") == user.id)
            let asBearer = try await harness.resource("/oauth/userinfo", token: access)
            #expect(asBearer.status == 401)
            #expect(asBearer.header("WWW-Authenticate")?.hasPrefix("DPoP ") == true)
            let proof = key.proof("GET", userinfo, accessToken: access)
            #expect(try await harness.resource("/oauth/userinfo", token: access, proof: proof).status == 200)
            let replayed = try await harness.resource("/oauth/userinfo", token: access, proof: proof)
            #expect(replayed.status == 401)
            #expect(replayed.header("WWW-Authenticate")?.contains(#"error="invalid_dpop_proof""#) == true)
            let thief = try DPoPProver()
            let stolen = try await harness.resource(
                "/oauth/userinfo", token: access, proof: thief.proof("GET", userinfo, accessToken: access))
            #expect(stolen.status == 401)
            let noAth = try await harness.resource(
                "/oauth/userinfo", token: access, proof: key.proof("GET", userinfo))
            #expect(noAth.status == 401)
            let profile = try await harness.resource(
                "/user/profile", token: access,
                proof: key.proof("GET", harness.issuer + "/user/profile", accessToken: access))
            #expect(profile.status == 200, "\(profile.text)")

            // The refresh token too: refused without the key, and the refusal changes nothing.
            let form = [("grant_type", "refresh_token"), ("refresh_token", refresh)]
            let bare = try await harness.token(form, client: .id(client.id))
            #expect(bare.status == 400)
            #expect(bare.string("error") == "invalid_dpop_proof")
            let wrongKey = try await harness.token(form, client: .id(client.id), proof: thief.proof("POST", tokenURL))
            #expect(wrongKey.string("error") == "invalid_dpop_proof")
            let rotated = try await harness.token(form, client: .id(client.id), proof: key.proof("POST", tokenURL))
            #expect(rotated.status == 200, "\(rotated.text)")
            #expect(rotated.string("token_type") == "DPoP")
            let next = try #require(rotated.string("refresh_token"))
            let again = try await harness.token(
                [("grant_type", "refresh_token"), ("refresh_token", next)], client: .id(client.id),
                proof: key.proof("POST", tokenURL))
            #expect(again.status == 200, "\(again.text)")
        }
    }

    @Test func aConfidentialClientsAccessTokenIsBoundButItsRefreshTokenNeedsOnlyItsSecret() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let client = try harness.addConfidentialClient(introspection: true)
            let credentials = ClientCredentials.of(client)
            let key = try DPoPProver(.edDSA)
            let code = try harness.issueCode(for: client, user: user, scopes: ["openid"])
            let reply = try await harness.token(
                Self.codeForm(code), client: credentials, proof: key.proof("POST", harness.issuer + "/oauth/token"))
            #expect(reply.string("token_type") == "DPoP", "\(reply.text)")
            let access = try #require(reply.string("access_token"))
            let introspected = try await harness.introspect(access, client: credentials).json
            #expect(introspected["active"] == true)
            #expect(introspected["token_type"] == "DPoP")
            #expect(introspected["cnf"] == ["jkt": .string(try key.thumbprint)])

            let refreshed = try await harness.refresh(try #require(reply.string("refresh_token")), client: credentials)
            #expect(refreshed.status == 200, "\(refreshed.text)")
            #expect(refreshed.string("token_type") == "Bearer")
        }
    }

    /// A confidential client's refresh with a proof takes the one-step rotation with the proof's
    /// first use in the same transaction: the new access token is bound, and a replayed proof
    /// rolls the rotation back, so the refresh token it came with still works.
    @Test func aRefreshWithAProofIsBoundAndAReplayRotatesNothing() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let client = try harness.addConfidentialClient(introspection: true)
            let credentials = ClientCredentials.of(client)
            let key = try DPoPProver()
            let url = harness.issuer + "/oauth/token"
            let code = try harness.issueCode(for: client, user: user, scopes: ["openid", "offline_access"])
            let first = try await harness.token(Self.codeForm(code), client: credentials)
            let refresh = try #require(first.string("refresh_token"))

            let proof = key.proof("POST", url)
            let form = [("grant_type", "refresh_token"), ("refresh_token", refresh)]
            let refreshed = try await harness.token(form, client: credentials, proof: proof)
            #expect(refreshed.status == 200, "\(refreshed.text)")
            #expect(refreshed.string("token_type") == "DPoP")
            let access = try #require(refreshed.string("access_token"))
            let introspected = try await harness.introspect(access, client: credentials).json
            #expect(introspected["cnf"] == ["jkt": .string(try key.thumbprint)])
            let next = try #require(refreshed.string("refresh_token"))

            let replay = try await harness.token(
                [("grant_type", "refresh_token"), ("refresh_token", next)], client: credentials, proof: proof)
            #expect(replay.status == 400)
            #expect(replay.string("error") == "invalid_dpop_proof", "\(replay.text)")
            // Nothing rotated: `next` is still the family's current token, not a replaced one
            // (which would revoke the family), and it works with a fresh proof.
            let again = try await harness.token(
                [("grant_type", "refresh_token"), ("refresh_token", next)], client: credentials,
                proof: key.proof("POST", url))
            #expect(again.status == 200, "\(again.text)")
            #expect(again.string("token_type") == "DPoP")
        }
    }

    @Test func clientCredentialsWithAProofAreBound() async throws {
        try await ProviderHarness.with { harness in
            try harness.store.insert(ProductScope(name: "orders:read", description: "See your orders"))
            let client = try harness.addConfidentialClient(
                scopes: ["orders:read"], grants: ["client_credentials"], introspection: true)
            let key = try DPoPProver(.rs256)
            let reply = try await harness.token(
                [("grant_type", "client_credentials")], client: .of(client),
                proof: key.proof("POST", harness.issuer + "/oauth/token"))
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.string("token_type") == "DPoP")
            let bearer = try await harness.token([("grant_type", "client_credentials")], client: .of(client))
            #expect(bearer.string("token_type") == "Bearer")
        }
    }

    /// Every check of RFC 9449 §4.3 refuses with `invalid_dpop_proof`, and the refused request
    /// changes nothing: the code is still redeemed afterwards.
    @Test func everyBadProofIsRefusedAndChangesNothing() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let client = try harness.addPublicClient()
            let key = try DPoPProver()
            let url = harness.issuer + "/oauth/token"
            let code = try harness.issueCode(for: client, user: user, scopes: ["openid"])
            // The public members plus a private one, as a careless client might send its whole key.
            var privateJWK = try #require(JSONValue(parsing: Array(key.key.publicJWK.jsonString.utf8)))
            if case .object(var members) = privateJWK {
                members["d"] = .string(Base64URL.encode(SecureRandom.bytes(count: 32)))
                privateJWK = .object(members)
            }
            let bad: [(String, String)] = [
                ("wrong method", key.proof("GET", url)),
                ("wrong URL", key.proof("POST", harness.issuer + "/oauth/userinfo")),
                ("iat too old", key.proof("POST", url, issuedAt: Date().addingTimeInterval(-600))),
                ("iat ahead", key.proof("POST", url, issuedAt: Date().addingTimeInterval(600))),
                ("no jti", key.proof("POST", url, jti: nil)),
                ("a JWT, not a proof", key.proof("POST", url, type: "JWT")),
                ("a private key in the header", key.proof("POST", url, jwk: privateJWK)),
                ("another key in the header", key.proof("POST", url, jwk: .object(["kty": "EC"]))),
                ("a nonce the server never made", key.proof("POST", url, nonce: "made-up")),
                ("garbage", "not.a.proof"),
                ("alg none", key.forgedProof("POST", url, algorithm: "none")),
                ("alg HS256", key.forgedProof("POST", url, algorithm: "HS256")),
            ]
            for (what, proof) in bad {
                let reply = try await harness.token(Self.codeForm(code), client: .id(client.id), proof: proof)
                #expect(reply.status == 400, "\(what): \(reply.text)")
                let error = reply.string("error")
                #expect(error == "invalid_dpop_proof" || error == "use_dpop_nonce", "\(what): \(reply.text)")
                if error == "use_dpop_nonce" { #expect(reply.header("DPoP-Nonce") != nil) }
            }
            let tampered = key.proof("POST", url).dropLast(2) + "AA"
            let forged = try await harness.token(Self.codeForm(code), client: .id(client.id), proof: String(tampered))
            #expect(forged.string("error") == "invalid_dpop_proof")

            let good = key.proof("POST", url)
            let redeemed = try await harness.token(Self.codeForm(code), client: .id(client.id), proof: good)
            #expect(redeemed.status == 200, "\(redeemed.text)")

            // The same proof again (another code) is a replay.
            let second = try harness.issueCode(for: client, user: user, scopes: ["openid"])
            let replay = try await harness.token(Self.codeForm(second), client: .id(client.id), proof: good)
            #expect(replay.string("error") == "invalid_dpop_proof", "\(replay.text)")
            // htu is compared without its query and fragment (RFC 9449 §4.3, step 9).
            let fresh = try await harness.token(
                Self.codeForm(second), client: .id(client.id), proof: key.proof("POST", url + "?x=1#part"))
            #expect(fresh.status == 200, "\(fresh.text)")
        }
    }

    /// The device grant binds like the others, and a public device's refresh token is bound.
    @Test func aDeviceGrantWithAProofIsBound() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let client = try harness.addDeviceClient()
            let key = try DPoPProver()
            let url = harness.issuer + "/oauth/token"
            let login = try await harness.startDeviceLogin(client)
            try harness.approve(login, as: user)
            let form = [
                ("grant_type", ProviderHarness.deviceGrantType), ("client_id", client.id),
                ("device_code", login.deviceCode),
            ]
            let reply = try await harness.request(
                "POST", "/oauth/token", form: form, headers: ["DPoP": key.proof("POST", url)])
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.string("token_type") == "DPoP")
            let refresh = try #require(reply.string("refresh_token"))
            let bare = try await harness.refresh(refresh, client: .id(client.id))
            #expect(bare.string("error") == "invalid_dpop_proof", "\(bare.text)")
            // Login with Amazon's token path is its own htu.
            let amazon = try await harness.request(
                "POST", "/auth/o2/token",
                form: [("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", client.id)],
                headers: ["DPoP": key.proof("POST", harness.issuer + "/auth/o2/token")])
            #expect(amazon.status == 200, "\(amazon.text)")
            #expect(amazon.string("token_type") == "DPoP")
        }
    }

    @Test func discoveryNamesTheProofAlgorithms() async throws {
        try await ProviderHarness.with { harness in
            let document = try await harness.get("/.well-known/openid-configuration").json
            #expect(document["dpop_signing_alg_values_supported"] == ["ES256", "EdDSA", "RS256", "PS256"])
        }
    }
}
