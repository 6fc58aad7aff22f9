import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// PS256 (RSASSA-PSS, the RSA algorithm FAPI 2.0 §5.4 allows) end to end over HTTP: verified
/// wherever a client signs with a key of its `--jwks` (client assertions, request objects) or
/// of its DPoP proofs, and signed by the provider's own PS256 key for clients registered
/// `--id-token-alg PS256` (ID tokens, logout tokens, SETs). A JWK's `alg` decides: an RSA key
/// registered for RS256 never verifies PS256, and the reverse.
@Suite struct PS256ServerTests {
    /// Registers a `private_key_jwt` client whose JWKS file holds `jwk`, as an operator would.
    private static func registerClient(_ harness: ProviderHarness, jwk: JWK, extra: [String] = []) throws -> String {
        try? harness.store.insert(ProductScope(name: "orders:read", description: "See your orders"))
        let file = harness.directory.appendingPathComponent("jwks-\(UUID()).json")
        try Data(JWKSet(keys: [jwk]).jsonString.utf8).write(to: file)
        let added = try PorticoProcess.run(
            [
                "client", "add", "--name", "FAPI Backend", "--grant", "client_credentials", "--scope", "orders:read",
                "--jwks", file.path, "--json", "--database", harness.databaseURL,
            ] + extra)
        #expect(added.status == 0, "\(added.stderr)")
        let object = try #require(JSONValue(parsing: Array(added.stdout.utf8))?.objectValue)
        return try #require(object["client_id"]?.stringValue)
    }

    /// A client assertion by `clientID` for `audience`, signed by `key`.
    private static func assertion(_ clientID: String, key: SigningKey, audience: String) -> [(String, String)] {
        let now = Date()
        let jwt = JWS.sign(
            claims: JWTClaims(
                issuer: clientID, subject: clientID, audience: [audience], expiresAt: now.addingTimeInterval(60),
                issuedAt: now, jwtID: UUID().uuidString),
            key: key)
        return [
            ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
            ("client_assertion", jwt),
        ]
    }

    /// The JWS algorithm in a compact JWS's header.
    private static func algorithm(of token: String) -> String? {
        token.split(separator: ".").first.flatMap { Base64URL.decode($0) }
            .flatMap { JSONValue(parsing: $0)?.objectValue?["alg"]?.stringValue }
    }

    @Test func aPS256ClientAssertionAuthenticatesAndATamperedOneIsInvalidClient() async throws {
        try await ProviderHarness.with { harness in
            let key = try SigningKey.generate(.ps256)
            let clientID = try Self.registerClient(harness, jwk: key.publicJWK, extra: ["--introspection"])
            let tokenURL = harness.issuer + "/oauth/token"
            let good = Self.assertion(clientID, key: key, audience: tokenURL)
            #expect(Self.algorithm(of: good[1].1) == "PS256")
            let granted = try await harness.post("/oauth/token", [("grant_type", "client_credentials")] + good)
            #expect(granted.status == 200, "\(granted.text)")
            let accessToken = try #require(granted.string("access_token"))

            // One bit of the signature flipped: not this client's.
            var tampered = Self.assertion(clientID, key: key, audience: tokenURL)
            var signature = try #require(signatureBytes(tampered[1].1))
            signature[signature.count / 2] ^= 0x01
            let parts = tampered[1].1.split(separator: ".")
            tampered[1].1 = "\(parts[0]).\(parts[1])." + Base64URL.encode(signature)
            let refused = try await harness.post("/oauth/token", [("grant_type", "client_credentials")] + tampered)
            #expect(refused.status == 401)
            #expect(refused.string("error") == "invalid_client")

            // Introspection and revocation take PS256 assertions too.
            let introspected = try await harness.post(
                "/oauth/introspect",
                [("token", accessToken)] + Self.assertion(clientID, key: key, audience: harness.issuer))
            #expect(introspected.status == 200, "\(introspected.text)")
            #expect(introspected.json["active"] == true)
            let revoked = try await harness.post(
                "/oauth/revoke", [("token", accessToken)] + Self.assertion(clientID, key: key, audience: tokenURL))
            #expect(revoked.status == 200, "\(revoked.text)")
        }
    }

    /// The registered JWK's `alg` decides: RS256 refuses PS256 assertions and PS256 refuses
    /// RS256 ones (the same RSA key behind both); without `alg` the key does either, and is
    /// stored without one.
    @Test func theRegisteredAlgDecidesAndAnRSAKeyWithoutOneDoesBoth() async throws {
        try await ProviderHarness.with { harness in
            let tokenURL = harness.issuer + "/oauth/token"
            let psKey = try SigningKey.generate(.ps256)
            var rsJWK = psKey.publicJWK
            rsJWK.algorithm = "RS256"
            let rsKey = try SigningKey(pem: psKey.pemRepresentation, algorithm: .rs256)
            func grant(_ clientID: String, _ key: SigningKey) async throws -> TestReply {
                try await harness.post(
                    "/oauth/token",
                    [("grant_type", "client_credentials")] + Self.assertion(clientID, key: key, audience: tokenURL))
            }

            let rsOnly = try Self.registerClient(harness, jwk: rsJWK)
            #expect(try await grant(rsOnly, rsKey).status == 200)
            let confused = try await grant(rsOnly, psKey)
            #expect(confused.status == 401)
            #expect(confused.string("error") == "invalid_client")

            let psOnly = try Self.registerClient(harness, jwk: psKey.publicJWK)
            #expect(try await grant(psOnly, psKey).status == 200)
            #expect(try await grant(psOnly, rsKey).status == 401)

            var bare = psKey.publicJWK
            bare.algorithm = nil
            let either = try Self.registerClient(harness, jwk: bare)
            #expect(try await grant(either, psKey).status == 200)
            #expect(try await grant(either, rsKey).status == 200)
            let stored = try #require(try harness.store.client(id: either)?.jwks)
            let storedKeys = try JWKSet(json: stored).keys
            #expect(storedKeys.count == 1)
            #expect(storedKeys.first?.algorithm == nil)
            #expect(storedKeys.first?.keyID == psKey.keyID)
        }
    }

    /// FAPI 2.0 §5.4.1 allows PS256, ES256 and EdDSA only: a `--profile fapi2` client whose RSA
    /// key has no `alg` (so it verifies both RSA algorithms elsewhere) gets its RS256 assertions
    /// and RS256 DPoP proofs refused, and PS256 ID tokens where RS256 was the default.
    @Test func aFAPI2ClientsSignaturesAreLimitedToWhatTheProfileAllows() async throws {
        try await ProviderHarness.with { harness in
            let tokenURL = harness.issuer + "/oauth/token"
            let psKey = try SigningKey.generate(.ps256)
            let rsKey = try SigningKey(pem: psKey.pemRepresentation, algorithm: .rs256)
            var bare = psKey.publicJWK
            bare.algorithm = nil
            let clientID = try Self.registerClient(harness, jwk: bare, extra: ["--profile", "fapi2"])
            #expect(try harness.store.client(id: clientID)?.idTokenSigningAlgorithm == "PS256")
            // RS256 asked for in so many words is refused in one line, not silently changed.
            let file = harness.directory.appendingPathComponent("jwks-rs256-\(UUID()).json")
            try Data(JWKSet(keys: [bare]).jsonString.utf8).write(to: file)
            let refused = try PorticoProcess.run([
                "client", "add", "--name", "FAPI Backend", "--grant", "client_credentials", "--jwks", file.path,
                "--profile", "fapi2", "--id-token-alg", "RS256", "--database", harness.databaseURL,
            ])
            #expect(refused.status == 2, "\(refused.stderr)")
            #expect(refused.stderr.contains("not RS256") && refused.stderr.split(separator: "\n").count == 1)
            func grant(_ key: SigningKey, proof prover: DPoPProver) async throws -> TestReply {
                try await harness.request(
                    "POST", "/oauth/token",
                    form: [("grant_type", "client_credentials")]
                        + Self.assertion(clientID, key: key, audience: tokenURL),
                    headers: ["DPoP": prover.proof("POST", tokenURL)])
            }
            let es256 = try DPoPProver(.es256)
            let rs256Assertion = try await grant(rsKey, proof: es256)
            #expect(rs256Assertion.status == 401 && rs256Assertion.string("error") == "invalid_client")
            let rs256Proof = try await grant(psKey, proof: try DPoPProver(.rs256))
            #expect(
                rs256Proof.status == 400 && rs256Proof.string("error") == "invalid_dpop_proof", "\(rs256Proof.text)")
            let granted = try await grant(psKey, proof: es256)
            #expect(granted.status == 200, "\(granted.text)")
            #expect(granted.string("token_type") == "DPoP")
        }
    }

    /// A client of `RequestObjectTests`' kind (its redirect URI, `--jwks`) with a PS256 key.
    private static func signedClient(_ harness: ProviderHarness) throws -> RequestObjectTests.SignedClient {
        let key = try SigningKey.generate(.ps256)
        let file = harness.directory.appendingPathComponent("jwks-\(UUID()).json")
        try Data(JWKSet(keys: [key.publicJWK]).jsonString.utf8).write(to: file)
        let added = try PorticoProcess.run([
            "client", "add", "--name", "Signed App", "--redirect-uri", RequestObjectTests.redirectURI, "--jwks",
            file.path, "--json", "--database", harness.databaseURL,
        ])
        #expect(added.status == 0, "\(added.stderr)")
        let id = try #require(JSONValue(parsing: Array(added.stdout.utf8))?.objectValue?["client_id"]?.stringValue)
        return RequestObjectTests.SignedClient(id: id, key: key)
    }

    @Test func aPS256RequestObjectPushedWithAPS256AssertionRunsTheCodeFlow() async throws {
        try await ProviderHarness.with { harness in
            _ = try harness.addUser()
            let client = try Self.signedClient(harness)
            let (id, key) = (client.id, client.key)
            let pkce = PKCEPair()
            let object = RequestObjectTests.sign(
                RequestObjectTests.claims(harness, client: client, pkce: pkce), key: key)
            #expect(Self.algorithm(of: object) == "PS256")
            let pushed = try await harness.post(
                "/oauth/par",
                [("client_id", id), ("request", object)] + RequestObjectTests.assertion(harness, client: client))
            #expect(pushed.status == 201, "\(pushed.text)")
            let requestURI = try #require(pushed.string("request_uri"))
            let browser = harness.browser()
            let start = try await browser.get(
                PushedAuthorizationTests.authorizePath(clientID: id, requestURI: requestURI))
            let done = try await PushedAuthorizationTests.signInAndAllow(browser, from: start)
            #expect(done.redirectParameters["state"] == "signed-state")
            let tokens = try await RequestObjectTests.redeem(harness, client: client, done: done, pkce: pkce)
            #expect(tokens.status == 200, "\(tokens.text)")

            // The same object with its signature altered is an invalid request object.
            var signature = try #require(signatureBytes(object))
            signature[0] ^= 0x80
            let parts = object.split(separator: ".")
            let altered = "\(parts[0]).\(parts[1])." + Base64URL.encode(signature)
            let refused = try await harness.post(
                "/oauth/par",
                [("client_id", id), ("request", altered)] + RequestObjectTests.assertion(harness, client: client))
            #expect(refused.status == 400)
            #expect(refused.string("error") == "invalid_request_object", "\(refused.text)")

        }
    }

    @Test func aPS256RequestObjectAtAuthorizeRunsTheCodeFlow() async throws {
        try await ProviderHarness.with { harness in
            _ = try harness.addUser()
            let client = try Self.signedClient(harness)
            let pkce = PKCEPair()
            let object = RequestObjectTests.sign(
                RequestObjectTests.claims(harness, client: client, pkce: pkce), key: client.key)
            var components = URLComponents()
            components.path = "/oauth/authorize"
            components.queryItems = [
                URLQueryItem(name: "client_id", value: client.id), URLQueryItem(name: "request", value: object),
            ]
            let browser = harness.browser()
            let start = try await browser.get(try #require(components.string))
            let done = try await PushedAuthorizationTests.signInAndAllow(browser, from: start)
            #expect(done.redirectParameters["state"] == "signed-state")
            let tokens = try await RequestObjectTests.redeem(harness, client: client, done: done, pkce: pkce)
            #expect(tokens.status == 200, "\(tokens.text)")
        }
    }

    /// A PS256 DPoP proof with an RSA `jwk` (its `alg` named or not) binds the token to the
    /// key's RFC 7638 thumbprint.
    @Test func aPS256DPoPProofBindsTheToken() async throws {
        try await ProviderHarness.with { harness in
            try harness.store.insert(ProductScope(name: "orders:read", description: "See your orders"))
            let client = try harness.addConfidentialClient(
                scopes: ["orders:read"], grants: ["client_credentials"], introspection: true)
            let key = try DPoPProver(.ps256)
            var bare = key.key.publicJWK
            bare.algorithm = nil
            bare.keyID = nil
            bare.use = nil
            let bareJWK = try #require(JSONValue(parsing: Array(bare.jsonString.utf8)))
            for jwk in [nil, bareJWK] {
                let proof = key.proof("POST", harness.issuer + "/oauth/token", jwk: jwk)
                #expect(Self.algorithm(of: proof) == "PS256")
                let reply = try await harness.token(
                    [("grant_type", "client_credentials")], client: .of(client), proof: proof)
                #expect(reply.status == 200, "\(reply.text)")
                #expect(reply.string("token_type") == "DPoP")
                let introspected = try await harness.introspect(
                    try #require(reply.string("access_token")), client: .of(client))
                #expect(introspected.json["cnf"] == ["jkt": .string(try key.thumbprint)])
            }
            // A proof whose signature is not the key's is refused.
            let proof = key.proof("POST", harness.issuer + "/oauth/token")
            var signature = try #require(signatureBytes(proof))
            signature[5] ^= 0x10
            let parts = proof.split(separator: ".")
            let forged = "\(parts[0]).\(parts[1])." + Base64URL.encode(signature)
            let refused = try await harness.token(
                [("grant_type", "client_credentials")], client: .of(client), proof: forged)
            #expect(refused.status == 400)
            #expect(refused.string("error") == "invalid_dpop_proof")
        }
    }

    /// The ID token of a `--id-token-alg PS256` client verifies with the JWKS key of its `kid`,
    /// whose `alg` is PS256 and which is not the RS256 key.
    @Test func aPS256ClientsIDTokenVerifiesWithItsOwnPublishedKey() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let client = try harness.addConfidentialClient(idTokenAlgorithm: "PS256")
            let reply = try await harness.signIn(user, to: client, scopes: ["openid", "email"])
            let idToken = try #require(reply.string("id_token"))
            let jwks = try await harness.request("GET", "/oauth/jwks")
            let keys = try JWKSet(json: jwks.text).keys
            let header = try #require(
                idToken.split(separator: ".").first.flatMap { Base64URL.decode($0) }
                    .flatMap { JSONValue(parsing: $0)?.objectValue })
            #expect(header["alg"] == "PS256")
            let keyID = try #require(header["kid"]?.stringValue)
            let published = try #require(keys.first { $0.keyID == keyID })
            #expect(published.algorithm == "PS256")
            #expect(published.keyType == "RSA")
            let rsa = try #require(keys.first { $0.algorithm == "RS256" })
            #expect(rsa.modulus != published.modulus)
            let verified = try JWSVerifier(keys: [try VerificationKey(jwk: published)]).verify(
                idToken, algorithms: [.ps256])
            let claims = try verified.claims()
            #expect(claims.audience == [client.id])
            let hash = Digest.sha256.hash(try #require(reply.string("access_token")))
            #expect(claims["at_hash"] == .string(Base64URL.encode(hash.prefix(hash.count / 2))))
            // The RS256 key does not verify it, whatever the header says.
            #expect(throws: JOSEError.self) {
                try JWSVerifier(keys: [try VerificationKey(jwk: rsa)]).verify(idToken, algorithms: [.ps256, .rs256])
            }
        }
    }

    /// Logout tokens follow the client's ID-token algorithm: PS256 here.
    @Test func aPS256ClientsLogoutTokenIsSignedPS256() async throws {
        try await ProviderHarness.with(configuration: backChannelConfiguration()) { provider in
            let user = try provider.addUser()
            let receiver = try LogoutReceiver()
            let shop = try provider.addBackChannelClient(name: "Shop", receiver: receiver, idTokenAlgorithm: "PS256")
            let browser = TestBrowser(base: provider.base)
            let tokens = try await provider.authorizeAndRedeem(browser, client: shop)
            #expect(Self.algorithm(of: try #require(tokens["id_token"]?.stringValue)) == "PS256")
            _ = try UserAdministration.remove(user.id, in: provider.store, now: provider.clock.now)
            let delivered = try await receiver.tokens(atLeast: 1)
            let token = try #require(delivered.first)
            #expect(Self.algorithm(of: token) == "PS256")
            _ = try await provider.verifiedLogoutToken(token, for: shop)
        }
    }

    /// SETs follow the client's ID-token algorithm too.
    @Test func aPS256ReceiversSETIsSignedPS256() async throws {
        try await ProviderHarness.with(configuration: signalConfiguration()) { provider in
            let shop = try provider.addSignalReceiver(name: "Shop", idTokenAlgorithm: "PS256")
            let token = try await provider.streamToken(for: shop)
            _ = try await provider.createStream(token: token, delivery: ["method": .string(SharedSignals.pollMethod)])
            let user = try provider.addUser()
            try provider.store.transaction { transaction in
                try transaction.saveConsent(
                    userID: user.id, clientID: shop.id, scopes: ["openid"], now: provider.clock.now)
            }
            _ = try UserAdministration.setDisabled(true, reference: user.id, in: provider.store)
            let polled = try await provider.json(
                "POST", SharedSignals.pollPath, token: token, body: ["returnImmediately": true])
            #expect(polled.status == 200, "\(polled.text)")
            let set = try #require(polled.json["sets"]?.objectValue?.values.first?.stringValue)
            #expect(Self.algorithm(of: set) == "PS256")
            _ = try await provider.verifiedSET(set, for: shop)
        }
    }

    @Test func dynamicRegistrationAcceptsPS256AndDiscoveryListsIt() async throws {
        try await ProviderHarness.with { harness in
            let made = try harness.portico(["registration-token", "create", "--uses", "1", "--json"])
            let token = try #require(cliJSON(made.stdout)?.objectValue?["token"]?.stringValue)
            let reply = try await PorticoServerTests.register(
                harness,
                #"{"client_name":"FAPI","redirect_uris":["https://fapi.example/cb"],"id_token_signed_response_alg":"PS256"}"#,
                token: token)
            #expect(reply.status == 201, "\(reply.text)")
            #expect(reply.string("id_token_signed_response_alg") == "PS256")

            let document = try await harness.get("/.well-known/openid-configuration")
            for name in [
                "id_token_signing_alg_values_supported", "token_endpoint_auth_signing_alg_values_supported",
                "revocation_endpoint_auth_signing_alg_values_supported",
                "introspection_endpoint_auth_signing_alg_values_supported",
                "request_object_signing_alg_values_supported", "dpop_signing_alg_values_supported",
            ] {
                #expect(document.json[name]?.arrayValue?.contains("PS256") == true, "\(name)")
            }
        }
    }

    /// A database from before PS256 (keys for RS256, ES256 and EdDSA only) gains a PS256 key at
    /// `migrate` (as at `serve`), leaving the others be; `keys rotate --alg PS256` rotates it.
    @Test func anOlderDatabaseGainsAPS256KeyAndItRotates() throws {
        let database = try CLIDatabase()
        #expect(try database.portico(["migrate"]).status == 0)
        let store = try openStore(url: database.url)
        defer { store.close() }
        let first = try #require(try store.currentSigningKey(algorithm: "PS256"))
        #expect(try store.transaction { try $0.deleteSigningKey(id: first.id) })
        let older = try store.signingKeys()
        #expect(Set(older.map(\.algorithm)) == ["RS256", "ES256", "EdDSA"])

        let migrated = try database.portico(["migrate"])
        #expect(migrated.status == 0, "\(migrated.stderr)")
        #expect(migrated.stdout.contains("made signing keys: PS256"))
        let after = try store.signingKeys()
        #expect(after.count == 4)
        #expect(Set(after.map(\.id)).isSuperset(of: older.map(\.id)))
        let added = try #require(try store.currentSigningKey(algorithm: "PS256"))
        #expect(added.id != first.id)

        let rotated = try database.portico(["keys", "rotate", "--alg", "ps256", "--json"])
        #expect(rotated.status == 0, "\(rotated.stderr)")
        let rotation = try #require(cliJSON(rotated.stdout)?.arrayValue?.first?.objectValue)
        #expect(rotation["alg"] == "PS256")
        #expect(rotation["previous_kid"] == .string(added.id))
        let newKeyID = try #require(rotation["kid"]?.stringValue)
        let due = Date().addingTimeInterval(SigningKeyRotation.publicationDelay + 1)
        #expect(try SigningKeyRotation.activateDueKeys(in: store, now: due) == [newKeyID])
        #expect(try store.currentSigningKey(algorithm: "PS256")?.id == newKeyID)
        // Every PS256 key is an RSA key of its own, loaded as PS256, never the RS256 key.
        let ring = try KeyRing(store: store, encryption: .load(keyFile: nil, store: store))
        let signer = try #require(ring.signer(for: .ps256))
        #expect(signer.algorithm == .ps256)
        #expect(signer.keyID == newKeyID)
        #expect(signer.publicJWK.modulus != ring.signer(for: .rs256)?.publicJWK.modulus)
    }
}

/// The decoded signature of a compact JWS.
private func signatureBytes(_ token: String) -> [UInt8]? {
    token.split(separator: ".", omittingEmptySubsequences: false).last.flatMap { Base64URL.decode($0) }
}
