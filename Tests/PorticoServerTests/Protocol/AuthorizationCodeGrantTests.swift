import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@Suite struct AuthorizationCodeGrantTests {
    @Test func aConfidentialClientGetsAccessRefreshAndIDTokensThatVerifyWithTheJWKS() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let client = try harness.addConfidentialClient()
            let authTime = Date().addingTimeInterval(-120)
            let code = try harness.issueCode(
                for: client, user: user, scopes: ["openid", "profile", "postal_code"], nonce: "n-0S6_WzA2Mj",
                authTime: authTime)
            let reply = try await harness.redeem(code, client: ClientCredentials.of(client))
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.header("Cache-Control") == "no-store")
            #expect(reply.string("token_type") == "Bearer")
            #expect(reply.json["expires_in"] == 3600)
            #expect(reply.string("scope") == "openid profile postal_code")
            let refreshToken = try #require(reply.string("refresh_token"))
            // The family's id (22 characters), a dot, 256 random bits (43 characters).
            let parts = refreshToken.split(separator: ".")
            #expect(parts.map(\.count) == [22, 43])
            #expect(try harness.store.refreshFamily(id: String(parts[0]))?.clientID == client.id)
            let verifier = try await harness.jwksVerifier()

            let accessToken = try #require(reply.string("access_token"))
            let access = try verifier.verify(accessToken, algorithms: [.es256], type: "at+jwt")
            #expect(access.header.algorithm == .es256)
            let accessClaims = try access.claims()
            try JWTValidator(issuer: harness.issuer, audience: harness.issuer).validate(accessClaims)
            #expect(accessClaims.subject == user.id)
            #expect(accessClaims["client_id"] == .string(client.id))
            #expect(accessClaims["scope"] == "openid profile postal_code")
            #expect(accessClaims["auth_time"] == .integer(Int64(authTime.timeIntervalSince1970)))
            #expect(accessClaims.jwtID?.isEmpty == false)
            let issuedAt = try #require(accessClaims.issuedAt)
            let lifetime = try #require(accessClaims.expiresAt?.timeIntervalSince(issuedAt))
            #expect(lifetime == 3600)

            let idToken = try #require(reply.string("id_token"))
            let identity = try verifier.verify(idToken, algorithms: [.rs256])
            let idClaims = try identity.claims()
            try JWTValidator(issuer: harness.issuer, audience: client.id).validate(idClaims)
            #expect(idClaims.subject == user.id)
            #expect(idClaims.audience == [client.id])
            #expect(idClaims["nonce"] == "n-0S6_WzA2Mj")
            #expect(idClaims["auth_time"] == .integer(Int64(authTime.timeIntervalSince1970)))
            let hash = Digest.sha256.hash(accessToken)
            #expect(idClaims["at_hash"] == .string(Base64URL.encode(hash.prefix(16))))
            #expect(idClaims["name"] == .string(user.name))
            #expect(idClaims["email"] == .string(user.email))
            #expect(idClaims["user_id"] == .string(user.id))
            #expect(idClaims["postal_code"] == "10115")
            #expect(idClaims["email_verified"] == nil)
        }
    }

    @Test(arguments: [("ES256", SignatureAlgorithm.es256, Digest.sha256), ("EdDSA", .edDSA, .sha512)])
    func idTokensUseTheClientsAlgorithmAndItsAtHashDigest(
        name: String, algorithm: SignatureAlgorithm, digest: Digest
    ) async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let client = try harness.addConfidentialClient(idTokenAlgorithm: name)
            let reply = try await harness.signIn(user, to: client, scopes: ["openid", "email"])
            let verifier = try await harness.jwksVerifier()
            let identity = try verifier.verify(try #require(reply.string("id_token")), algorithms: [algorithm])
            #expect(identity.header.algorithm == algorithm)
            let claims = try identity.claims()
            let hash = digest.hash(try #require(reply.string("access_token")))
            #expect(claims["at_hash"] == .string(Base64URL.encode(hash.prefix(hash.count / 2))))
            #expect(claims["email"] == .string(user.email))
            #expect(claims["email_verified"] == false)
            #expect(claims["nonce"] == nil)
            #expect(claims["name"] == nil)
        }
    }

    @Test func aPublicClientRedeemsWithPKCEAloneAndGetsNoIDTokenWithoutOpenID() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let client = try harness.addPublicClient()
            let reply = try await harness.signIn(user, to: client, scopes: ["profile"])
            #expect(reply.string("id_token") == nil)
            #expect(reply.string("refresh_token") != nil)
            #expect(reply.string("scope") == "profile")
        }
    }

    @Test func clientSecretPostWorksAndNoRefreshTokenWithoutThatGrant() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let client = try harness.addConfidentialClient(secret: "plain", grants: ["authorization_code"])
            let reply = try await harness.signIn(
                user, to: client, scopes: ["openid"], credentials: .post(id: client.id, secret: "plain"))
            #expect(reply.string("access_token") != nil)
            #expect(reply.string("refresh_token") == nil)
            #expect(reply.string("id_token") != nil)
        }
    }

    @Test func aReplayedCodeFailsAndRevokesWhatTheFirstRedemptionIssued() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let client = try harness.addConfidentialClient(introspection: true)
            let credentials = ClientCredentials.of(client)
            let code = try harness.issueCode(for: client, user: user, scopes: ["openid", "profile"])
            let first = try await harness.redeem(code, client: credentials)
            #expect(first.status == 200)
            let accessToken = try #require(first.string("access_token"))
            let refreshToken = try #require(first.string("refresh_token"))
            #expect(try await harness.introspect(accessToken, client: credentials).json["active"] == true)

            let replay = try await harness.redeem(code, client: credentials)
            #expect(replay.status == 400)
            #expect(replay.string("error") == "invalid_grant")

            #expect(try await harness.introspect(accessToken, client: credentials).json["active"] == false)
            #expect(try await harness.resource("/oauth/userinfo", token: accessToken).status == 401)
            let refreshed = try await harness.refresh(refreshToken, client: credentials)
            #expect(refreshed.string("error") == "invalid_grant")
            let audit = try harness.store.read { try $0.recentAuditEvents(limit: 10) }
            #expect(audit.contains { $0.action == "token.code_replayed" && $0.subject == user.id })
        }
    }

    @Test func codesAreBoundToTheirClientRedirectURIAndVerifierAndExpire() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let client = try harness.addConfidentialClient()
            let other = try harness.addConfidentialClient()
            let credentials = ClientCredentials.of(client)
            let code = try harness.issueCode(for: client, user: user, scopes: ["openid"])
            func redeem(
                code: String = code.code, redirectURI: String = code.redirectURI, verifier: String? = code.verifier,
                as credentials: ClientCredentials = credentials
            ) async throws -> TestReply {
                var form = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI)]
                if let verifier { form.append(("code_verifier", verifier)) }
                return try await harness.token(form, client: credentials)
            }
            let wrongClient = try await redeem(as: ClientCredentials.of(other))
            #expect(wrongClient.status == 400)
            #expect(wrongClient.string("error") == "invalid_grant")
            let wrongRedirect = try await redeem(redirectURI: "https://shop.example/other")
            #expect(wrongRedirect.string("error") == "invalid_grant")
            let wrongVerifier = try await redeem(verifier: PKCE.makeVerifier())
            #expect(wrongVerifier.string("error") == "invalid_grant")
            let malformedVerifier = try await redeem(verifier: "short")
            #expect(malformedVerifier.string("error") == "invalid_grant")
            let noVerifier = try await redeem(verifier: nil)
            #expect(noVerifier.string("error") == "invalid_request")
            let unknown = try await redeem(code: SecureRandom.token())
            #expect(unknown.string("error") == "invalid_grant")
            // None of the failures burned the code: its client can still redeem it.
            #expect(try await redeem().status == 200)

            let expired = try harness.issueCode(for: client, user: user, scopes: ["openid"], expiresIn: -1)
            let late = try await harness.redeem(expired, client: credentials)
            #expect(late.status == 400)
            #expect(late.string("error") == "invalid_grant")
        }
    }

    @Test func missingParametersAndBadBodiesAreInvalidRequest() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let client = try harness.addConfidentialClient()
            let credentials = ClientCredentials.of(client)
            let code = try harness.issueCode(for: client, user: user, scopes: ["openid"])
            let cases: [[(String, String)]] = [
                [("code", code.code), ("redirect_uri", code.redirectURI), ("code_verifier", code.verifier)],
                [("grant_type", "authorization_code"), ("redirect_uri", code.redirectURI)],
                [("grant_type", "authorization_code"), ("code", code.code), ("code_verifier", code.verifier)],
                [("grant_type", "authorization_code"), ("grant_type", "authorization_code"), ("code", code.code)],
            ]
            for form in cases {
                let reply = try await harness.token(form, client: credentials)
                #expect(reply.status == 400)
                #expect(reply.string("error") == "invalid_request", "\(form)")
                #expect(reply.header("Cache-Control") == "no-store")
            }
            let json = try await harness.request(
                "POST", "/oauth/token", client: credentials, headers: ["Content-Type": "application/json"],
                rawBody: #"{"grant_type":"authorization_code"}"#)
            #expect(json.string("error") == "invalid_request")
            let badEncoding = try await harness.request(
                "POST", "/oauth/token", client: credentials,
                headers: ["Content-Type": "application/x-www-form-urlencoded"], rawBody: "grant_type=%zz")
            #expect(badEncoding.string("error") == "invalid_request")
            #expect(try await harness.redeem(code, client: credentials).status == 200)
        }
    }

    @Test func grantTypesMustBeSupportedAndAllowedForTheClient() async throws {
        try await ProviderHarness.with { harness in
            let client = try harness.addConfidentialClient(grants: ["authorization_code"])
            let credentials = ClientCredentials.of(client)
            let unknown = try await harness.token([("grant_type", "password")], client: credentials)
            #expect(unknown.status == 400)
            #expect(unknown.string("error") == "unsupported_grant_type")
            let notAllowed = try await harness.token(
                [("grant_type", "refresh_token"), ("refresh_token", "x")], client: credentials)
            #expect(notAllowed.string("error") == "unauthorized_client")
            let credentialsGrant = try await harness.token([("grant_type", "client_credentials")], client: credentials)
            #expect(credentialsGrant.string("error") == "unauthorized_client")
        }
    }
}

@Suite struct ClientAuthenticationTests {
    @Test func wrongOrMissingCredentialsAreInvalidClient() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let client = try harness.addConfidentialClient()
            let publicClient = try harness.addPublicClient()
            let code = try harness.issueCode(for: client, user: user, scopes: ["openid"])

            let wrongBasic = try await harness.redeem(code, client: .basic(id: client.id, secret: "wrong"))
            #expect(wrongBasic.status == 401)
            #expect(wrongBasic.string("error") == "invalid_client")
            #expect(wrongBasic.header("WWW-Authenticate")?.hasPrefix("Basic") == true)

            let wrongPost = try await harness.redeem(code, client: .post(id: client.id, secret: "wrong"))
            #expect(wrongPost.status == 401)
            #expect(wrongPost.string("error") == "invalid_client")
            #expect(wrongPost.header("WWW-Authenticate") == nil)

            let unknown = try await harness.redeem(code, client: .basic(id: "nobody", secret: "x"))
            #expect(unknown.status == 401)
            #expect(unknown.string("error") == "invalid_client")

            let confidentialWithoutSecret = try await harness.redeem(code, client: .id(client.id))
            #expect(confidentialWithoutSecret.status == 401)
            #expect(confidentialWithoutSecret.string("error") == "invalid_client")

            let nobody = try await harness.redeem(code, client: .none)
            #expect(nobody.status == 401)

            let publicWithSecret = try await harness.redeem(code, client: .post(id: publicClient.id, secret: "x"))
            #expect(publicWithSecret.status == 401)

            let garbage = try await harness.request(
                "POST", "/oauth/token", form: [("grant_type", "authorization_code")],
                headers: ["Authorization": "Basic !!!"])
            #expect(garbage.status == 401)
            #expect(garbage.header("WWW-Authenticate")?.hasPrefix("Basic") == true)

            // The code survived every failed attempt.
            #expect(try await harness.redeem(code, client: ClientCredentials.of(client)).status == 200)
        }
    }

    @Test func twoMethodsAtOnceAreInvalidRequest() async throws {
        try await ProviderHarness.with { harness in
            let client = try harness.addConfidentialClient(secret: "abc")
            let both = try await harness.request(
                "POST", "/oauth/token",
                form: [("grant_type", "authorization_code"), ("client_secret", "abc")],
                client: .basic(id: client.id, secret: "abc"))
            #expect(both.status == 400)
            #expect(both.string("error") == "invalid_request")
            let contradicting = try await harness.request(
                "POST", "/oauth/token", form: [("grant_type", "authorization_code"), ("client_id", "someone-else")],
                client: .basic(id: client.id, secret: "abc"))
            #expect(contradicting.string("error") == "invalid_request")
        }
    }

    @Test func basicCredentialsAreFormURLDecoded() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let secret = "a b+c:d%e&f/ü"
            let client = try harness.addConfidentialClient(secret: secret)
            let code = try harness.issueCode(for: client, user: user, scopes: ["openid"])
            // Undecoded it would not match: send the raw secret without form encoding first.
            let raw = Data("\(client.id):a b+c:d%e&f/ü".utf8).base64EncodedString()
            let undecoded = try await harness.request(
                "POST", "/oauth/token",
                form: [
                    ("grant_type", "authorization_code"), ("code", code.code), ("redirect_uri", code.redirectURI),
                    ("code_verifier", code.verifier),
                ], headers: ["Authorization": "Basic \(raw)"])
            #expect(undecoded.status == 401 || undecoded.status == 400)
            let reply = try await harness.redeem(code, client: .basic(id: client.id, secret: secret))
            #expect(reply.status == 200, "\(reply.text)")
        }
    }
}
