import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

/// Signed authorization requests (JAR, RFC 9101) end to end, for a client registered by the
/// real `portico client add --jwks FILE`: a `request` object at `/oauth/par` (with a
/// `private_key_jwt` assertion) and at `/oauth/authorize` runs the code flow to tokens, its
/// claims replace every parameter sent beside it, and every way an object can be wrong is
/// `invalid_request_object`.
@Suite struct RequestObjectTests {
    static let redirectURI = "https://signed.example/cb"

    /// A registered client and its private key.
    struct SignedClient {
        let id: String
        let key: SigningKey
    }

    /// Registers a client with a JWKS file, as an operator would.
    static func register(_ harness: ProviderHarness, extra: [String] = []) throws -> SignedClient {
        let key = try SigningKey.generate(.es256)
        let file = harness.directory.appendingPathComponent("jwks-\(UUID()).json")
        try Data(JWKSet(keys: [key.publicJWK]).jsonString.utf8).write(to: file)
        let added = try PorticoProcess.run(
            [
                "client", "add", "--name", "Signed App", "--redirect-uri", redirectURI, "--jwks", file.path, "--json",
                "--database", harness.databaseURL,
            ] + extra)
        #expect(added.status == 0, "\(added.stderr)")
        let object = try #require(JSONValue(parsing: Array(added.stdout.utf8))?.objectValue)
        return SignedClient(id: try #require(object["client_id"]?.stringValue), key: key)
    }

    /// The claims of a good request object for `client`.
    static func claims(_ harness: ProviderHarness, client: SignedClient, pkce: PKCEPair, now: Date = Date())
        -> JWTClaims
    {
        var claims = JWTClaims(
            issuer: client.id, audience: [harness.issuer], expiresAt: now.addingTimeInterval(300), notBefore: now,
            issuedAt: now, jwtID: UUID().uuidString)
        claims["client_id"] = .string(client.id)
        claims["response_type"] = "code"
        claims["redirect_uri"] = .string(redirectURI)
        claims["scope"] = "openid profile"
        claims["state"] = "signed-state"
        claims["nonce"] = "signed-nonce"
        claims["code_challenge"] = .string(pkce.challenge)
        claims["code_challenge_method"] = "S256"
        claims["max_age"] = .integer(3600)
        return claims
    }

    /// `claims` signed by `key` with `typ` `type`.
    static func sign(_ claims: JWTClaims, key: SigningKey, type: String? = "oauth-authz-req+jwt") -> String {
        JWS.sign(claims: claims, key: key, type: type)
    }

    /// A `private_key_jwt` assertion of `client` for the PAR endpoint.
    static func assertion(_ harness: ProviderHarness, client: SignedClient) -> [(String, String)] {
        let now = Date()
        let jwt = JWS.sign(
            claims: JWTClaims(
                issuer: client.id, subject: client.id, audience: [harness.issuer + "/oauth/par"],
                expiresAt: now.addingTimeInterval(60), issuedAt: now, jwtID: UUID().uuidString),
            key: client.key)
        return [
            ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
            ("client_assertion", jwt),
        ]
    }

    /// Redeems `done`'s code with a fresh assertion.
    static func redeem(_ harness: ProviderHarness, client: SignedClient, done: TestReply, pkce: PKCEPair) async throws
        -> TestReply
    {
        let code = try #require(done.redirectParameters["code"], "\(done.status) \(done.location ?? "")")
        let now = Date()
        let jwt = JWS.sign(
            claims: JWTClaims(
                issuer: client.id, subject: client.id, audience: [harness.issuer + "/oauth/token"],
                expiresAt: now.addingTimeInterval(60), issuedAt: now, jwtID: UUID().uuidString),
            key: client.key)
        return try await harness.post(
            "/oauth/token",
            [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
                ("code_verifier", pkce.verifier),
                ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
                ("client_assertion", jwt),
            ])
    }

    @Test func aSignedRequestPushedWithPrivateKeyJWTRunsTheCodeFlow() async throws {
        try await ProviderHarness.with { harness in
            _ = try harness.addUser()
            let client = try Self.register(harness)
            let pkce = PKCEPair()
            let object = Self.sign(Self.claims(harness, client: client, pkce: pkce), key: client.key)
            // Parameters beside the object are ignored (RFC 9126 §3).
            let pushed = try await harness.post(
                "/oauth/par",
                [("client_id", client.id), ("request", object), ("scope", "openid email"), ("state", "outside")]
                    + Self.assertion(harness, client: client))
            #expect(pushed.status == 201, "\(pushed.text)")
            let requestURI = try #require(pushed.string("request_uri"))
            let browser = harness.browser()
            let start = try await browser.get(
                PushedAuthorizationTests.authorizePath(clientID: client.id, requestURI: requestURI))
            let done = try await PushedAuthorizationTests.signInAndAllow(browser, from: start)
            #expect(done.redirectParameters["state"] == "signed-state")
            let tokens = try await Self.redeem(harness, client: client, done: done, pkce: pkce)
            #expect(tokens.status == 200, "\(tokens.text)")
            #expect(tokens.string("scope") == "openid profile")
        }
    }

    @Test func aSignedRequestAtAuthorizeRunsTheCodeFlowAndOverridesTheURL() async throws {
        try await ProviderHarness.with { harness in
            _ = try harness.addUser()
            let client = try Self.register(harness)
            let pkce = PKCEPair()
            let object = Self.sign(Self.claims(harness, client: client, pkce: pkce), key: client.key)
            var components = URLComponents()
            components.path = "/oauth/authorize"
            components.queryItems = [
                URLQueryItem(name: "client_id", value: client.id), URLQueryItem(name: "request", value: object),
                URLQueryItem(name: "scope", value: "openid email"), URLQueryItem(name: "state", value: "outside"),
                URLQueryItem(name: "response_type", value: "code"),
                URLQueryItem(name: "code_challenge", value: PKCEPair().challenge),
            ]
            let browser = harness.browser()
            let start = try await browser.get(try #require(components.string))
            let done = try await PushedAuthorizationTests.signInAndAllow(browser, from: start)
            #expect(try #require(done.location).hasPrefix(Self.redirectURI + "?"))
            #expect(done.redirectParameters["state"] == "signed-state")
            let tokens = try await Self.redeem(harness, client: client, done: done, pkce: pkce)
            #expect(tokens.status == 200, "\(tokens.text)")
            #expect(tokens.string("scope") == "openid profile")
        }
    }

    @Test func everyFaultyRequestObjectIsInvalidRequestObject() async throws {
        try await ProviderHarness.with { harness in
            let client = try Self.register(harness)
            let pkce = PKCEPair()
            let now = Date()
            let good = Self.claims(harness, client: client, pkce: pkce, now: now)
            func with(_ change: (inout JWTClaims) -> Void) -> String {
                var claims = good
                change(&claims)
                return Self.sign(claims, key: client.key)
            }
            let stranger = try SigningKey.generate(.es256)
            let header = { (json: String) in Base64URL.encode(Array(json.utf8)) }
            let unsigned =
                header(#"{"alg":"none","kid":"\#(client.key.keyID)","typ":"oauth-authz-req+jwt"}"#) + "."
                + Base64URL.encode(good.jsonBytes()) + "."
            let cases: [(String, String)] = [
                ("no typ", Self.sign(good, key: client.key, type: nil)),
                ("typ JWT", Self.sign(good, key: client.key, type: "JWT")),
                ("another key", Self.sign(good, key: stranger)),
                ("alg none", unsigned),
                ("wrong iss", with { $0.issuer = "someone-else" }),
                ("no iss", with { $0.issuer = nil }),
                ("wrong aud", with { $0.audience = ["https://elsewhere.example"] }),
                ("expired", with { $0.expiresAt = now.addingTimeInterval(-120) }),
                ("no exp", with { $0.expiresAt = nil }),
                ("exp too far", with { $0.expiresAt = now.addingTimeInterval(2 * 3600) }),
                ("nbf in the future", with { $0.notBefore = now.addingTimeInterval(600) }),
                ("nbf too old", with { $0.notBefore = now.addingTimeInterval(-2 * 3600) }),
                ("client_id of another", with { $0["client_id"] = "someone-else" }),
                ("request_uri inside", with { $0["request_uri"] = "urn:ietf:params:oauth:request_uri:x" }),
                ("not a JWT", "not.a.jwt"),
            ]
            for (name, object) in cases {
                let pushed = try await harness.post(
                    "/oauth/par",
                    [("client_id", client.id), ("request", object)] + Self.assertion(harness, client: client))
                #expect(pushed.status == 400, "\(name): \(pushed.text)")
                #expect(pushed.string("error") == "invalid_request_object", "\(name): \(pushed.text)")
                var components = URLComponents()
                components.path = "/oauth/authorize"
                components.queryItems = [
                    URLQueryItem(name: "client_id", value: client.id), URLQueryItem(name: "request", value: object),
                    URLQueryItem(name: "state", value: "outside"),
                ]
                let reply = try await harness.browser().get(try #require(components.string))
                #expect(reply.status == 302, "\(name): \(reply.text)")
                #expect(reply.location?.hasPrefix(Self.redirectURI + "?") == true, "\(name)")
                #expect(reply.redirectParameters["error"] == "invalid_request_object", "\(name)")
                #expect(reply.redirectParameters["state"] == "outside", "\(name)")
                #expect(reply.redirectParameters["code"] == nil, "\(name)")
            }
            // After all that, the good one works.
            let pushed = try await harness.post(
                "/oauth/par",
                [("client_id", client.id), ("request", Self.sign(good, key: client.key))]
                    + Self.assertion(harness, client: client))
            #expect(pushed.status == 201, "\(pushed.text)")
        }
    }

    @Test func aClientWithoutKeysCannotSignRequests() async throws {
        try await ProviderHarness.with { harness in
            let client = try harness.addConfidentialClient()
            let key = try SigningKey.generate(.es256)
            let signed = SignedClient(id: client.id, key: key)
            let object = Self.sign(Self.claims(harness, client: signed, pkce: PKCEPair()), key: key)
            let pushed = try await harness.post("/oauth/par", [("request", object)], client: .of(client))
            #expect(pushed.status == 400)
            #expect(pushed.string("error") == "invalid_request_object", "\(pushed.text)")
        }
    }
}
