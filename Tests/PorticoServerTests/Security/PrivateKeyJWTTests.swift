import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

/// `private_key_jwt` client authentication (RFC 7523 §2.2, OIDC Core §9) end to end: a client
/// registered by the real `portico client add --jwks FILE` authenticates at the token,
/// revocation and introspection endpoints with assertions it signs, and every way an assertion
/// can be wrong is a 401.
@Suite struct PrivateKeyJWTTests {
    /// A client's key pair and the JWKS file of its public half.
    private struct ClientKey {
        let key: SigningKey
        let file: URL

        init(_ algorithm: SignatureAlgorithm = .es256, in directory: URL) throws {
            key = try SigningKey.generate(algorithm)
            file = directory.appendingPathComponent("jwks-\(UUID()).json")
            try Data(JWKSet(keys: [key.publicJWK]).jsonString.utf8).write(to: file)
        }
    }

    /// An assertion by `clientID` for `audience`, valid for `lifetime` seconds from `now`.
    private static func assertion(
        _ clientID: String, key: SigningKey, audience: String, now: Date = Date(), lifetime: TimeInterval = 60,
        jti: String = UUID().uuidString, subject: String? = nil
    ) -> String {
        assertion(clientID, key: key, audiences: [audience], now: now, lifetime: lifetime, jti: jti, subject: subject)
    }

    /// The same with `aud` a list when `audiences` has more than one member.
    private static func assertion(
        _ clientID: String, key: SigningKey, audiences: [String], now: Date = Date(), lifetime: TimeInterval = 60,
        jti: String = UUID().uuidString, subject: String? = nil
    ) -> String {
        JWS.sign(
            claims: JWTClaims(
                issuer: clientID, subject: subject ?? clientID, audience: audiences,
                expiresAt: now.addingTimeInterval(lifetime), issuedAt: now, jwtID: jti),
            key: key)
    }

    private static func form(_ assertion: String) -> [(String, String)] {
        [
            ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
            ("client_assertion", assertion),
        ]
    }

    /// Registers a client with the CLI, as an operator would; returns its id.
    private static func register(_ harness: ProviderHarness, jwks: URL, extra: [String] = []) throws -> String {
        try harness.store.insert(ProductScope(name: "orders:read", description: "See your orders"))
        let added = try PorticoProcess.run(
            [
                "client", "add", "--name", "Backend", "--grant", "client_credentials", "--scope", "orders:read",
                "--jwks", jwks.path, "--json", "--database", harness.databaseURL,
            ] + extra)
        #expect(added.status == 0, "\(added.stderr)")
        let object = try #require(JSONValue(parsing: Array(added.stdout.utf8))?.objectValue)
        #expect(object["client_secret"] == nil, "a private_key_jwt client gets no secret")
        return try #require(object["client_id"]?.stringValue)
    }

    @Test func anAssertionAuthenticatesOnceAtEveryBackChannelEndpoint() async throws {
        try await ProviderHarness.with { harness in
            let clientKey = try ClientKey(in: harness.directory)
            let clientID = try Self.register(harness, jwks: clientKey.file, extra: ["--introspection"])
            let tokenURL = harness.issuer + "/oauth/token"

            let first = Self.assertion(clientID, key: clientKey.key, audience: tokenURL)
            let granted = try await harness.post(
                "/oauth/token", [("grant_type", "client_credentials")] + Self.form(first))
            #expect(granted.status == 200, "\(granted.text)")
            let accessToken = try #require(granted.string("access_token"))

            // The same assertion again is a replay.
            let replayed = try await harness.post(
                "/oauth/token", [("grant_type", "client_credentials")] + Self.form(first))
            #expect(replayed.status == 401)
            #expect(replayed.string("error") == "invalid_client")
            #expect(replayed.string("error_description")?.contains("already used") == true)

            // The issuer is an audience as good as the token endpoint; client_id may be sent too.
            let introspected = try await harness.post(
                "/oauth/introspect",
                [("token", accessToken), ("client_id", clientID)]
                    + Self.form(Self.assertion(clientID, key: clientKey.key, audience: harness.issuer)))
            #expect(introspected.status == 200, "\(introspected.text)")
            #expect(introspected.json["active"] == true)
            let revoked = try await harness.post(
                "/oauth/revoke",
                [("token", accessToken)] + Self.form(Self.assertion(clientID, key: clientKey.key, audience: tokenURL)))
            #expect(revoked.status == 200, "\(revoked.text)")

            // It has no secret, and mixing methods is a bad request.
            let basic = try await harness.token(
                [("grant_type", "client_credentials")], client: .basic(id: clientID, secret: ""))
            #expect(basic.status == 401)
            let mixed = try await harness.token(
                [("grant_type", "client_credentials")]
                    + Self.form(Self.assertion(clientID, key: clientKey.key, audience: tokenURL)),
                client: .basic(id: clientID, secret: "x"))
            #expect(mixed.status == 400)
            #expect(mixed.string("error") == "invalid_request")
        }
    }

    @Test func everyFaultyAssertionIsInvalidClient() async throws {
        try await ProviderHarness.with { harness in
            let clientKey = try ClientKey(in: harness.directory)
            let clientID = try Self.register(harness, jwks: clientKey.file)
            let tokenURL = harness.issuer + "/oauth/token"
            let stranger = try SigningKey.generate(.es256)
            let now = Date()
            let payload = JWTClaims(
                issuer: clientID, subject: clientID, audience: [tokenURL], expiresAt: now.addingTimeInterval(60),
                jwtID: UUID().uuidString
            ).jsonBytes()
            let header = { (json: String) in Base64URL.encode(Array(json.utf8)) }
            let unsigned =
                header(#"{"alg":"none","kid":"\#(clientKey.key.keyID)"}"#) + "."
                + Base64URL.encode(payload) + "."
            let hmac =
                header(#"{"alg":"HS256","kid":"\#(clientKey.key.keyID)"}"#) + "."
                + Base64URL.encode(payload) + "." + Base64URL.encode(Array(repeating: 1, count: 32))
            let cases: [(String, String)] = [
                ("wrong audience", Self.assertion(clientID, key: clientKey.key, audience: "https://elsewhere.example")),
                // A list naming another server too: that server could replay it here.
                (
                    "aud list with the token endpoint",
                    Self.assertion(clientID, key: clientKey.key, audiences: [tokenURL, "https://elsewhere.example"])
                ),
                (
                    "aud list with the issuer",
                    Self.assertion(
                        clientID, key: clientKey.key, audiences: ["https://elsewhere.example", harness.issuer])
                ),
                (
                    "aud list of the issuer and the token endpoint",
                    Self.assertion(clientID, key: clientKey.key, audiences: [harness.issuer, tokenURL])
                ),
                (
                    "expired",
                    Self.assertion(clientID, key: clientKey.key, audience: tokenURL, now: now.addingTimeInterval(-600))
                ),
                ("too long-lived", Self.assertion(clientID, key: clientKey.key, audience: tokenURL, lifetime: 3600)),
                (
                    "sub is not the client",
                    Self.assertion(clientID, key: clientKey.key, audience: tokenURL, subject: "someone")
                ),
                ("another key", Self.assertion(clientID, key: stranger, audience: tokenURL)),
                ("no jti", Self.assertion(clientID, key: clientKey.key, audience: tokenURL, jti: "")),
                ("alg none", unsigned),
                ("alg HS256", hmac),
                ("unknown client", Self.assertion("no-such-client", key: clientKey.key, audience: tokenURL)),
                ("not a JWT", "not.a.jwt"),
            ]
            for (name, assertion) in cases {
                let reply = try await harness.post(
                    "/oauth/token", [("grant_type", "client_credentials")] + Self.form(assertion))
                #expect(reply.status == 401, "\(name): \(reply.text)")
                #expect(reply.string("error") == "invalid_client", "\(name)")
            }
            let wrongType = try await harness.post(
                "/oauth/token",
                [
                    ("grant_type", "client_credentials"), ("client_assertion_type", "urn:example:saml"),
                    ("client_assertion", Self.assertion(clientID, key: clientKey.key, audience: tokenURL)),
                ])
            #expect(wrongType.status == 401)
            // A client_id that is not the assertion's issuer.
            let other = try await harness.post(
                "/oauth/token",
                [("grant_type", "client_credentials"), ("client_id", "other")]
                    + Self.form(Self.assertion(clientID, key: clientKey.key, audience: tokenURL)))
            #expect(other.status == 401)
            // After all that, a good one still works: nothing above used up its jti.
            let good = try await harness.post(
                "/oauth/token",
                [("grant_type", "client_credentials")]
                    + Self.form(Self.assertion(clientID, key: clientKey.key, audience: tokenURL)))
            #expect(good.status == 200, "\(good.text)")
        }
    }

    @Test func discoveryAdvertisesTheMethodAndItsAlgorithms() async throws {
        try await ProviderHarness.with { harness in
            let document = try await harness.get("/.well-known/openid-configuration").json
            for endpoint in ["token", "revocation", "introspection"] {
                let methods = document["\(endpoint)_endpoint_auth_methods_supported"]?.arrayValue ?? []
                #expect(methods.contains(.string("private_key_jwt")), "\(endpoint)")
                let algorithms = document["\(endpoint)_endpoint_auth_signing_alg_values_supported"]?.arrayValue ?? []
                #expect(
                    Set(algorithms) == [.string("RS256"), .string("ES256"), .string("EdDSA"), .string("PS256")],
                    "\(endpoint)")
            }
        }
    }

    @Test(arguments: [
        ("{not json", "is not a JSON Web Key Set"),
        (#"{"keys": []}"#, "has no keys"),
        (#"{"keys": [{"kty": "EC", "crv": "P-256", "x": "AA", "y": "AA", "d": "AA"}]}"#, "is a private key"),
        (#"{"keys": [{"kty": "oct", "k": "c2VjcmV0"}]}"#, "cannot verify signatures"),
        (#"{"keys": [{"kty": "RSA", "n": "AQAB", "e": "AQAB"}]}"#, "cannot verify signatures"),
    ])
    func aBadKeySetFileIsOneClearLine(_ content: String, _ message: String) throws {
        let database = try CLIDatabase()
        let file = database.directory.appendingPathComponent("jwks.json")
        try Data(content.utf8).write(to: file)
        let result = try database.portico([
            "client", "add", "--name", "Backend", "--grant", "client_credentials", "--jwks", file.path,
        ])
        #expect(result.status == 2, "\(result.stdout) \(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        let missing = try database.portico([
            "client", "add", "--name", "Backend", "--grant", "client_credentials", "--jwks", "/nonexistent/jwks.json",
        ])
        #expect(missing.status == 1)
        #expect(missing.stderr.split(separator: "\n").count == 1)
    }
}
