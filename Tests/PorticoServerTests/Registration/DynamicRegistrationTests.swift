import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// RFC 7591 registration at `POST /oauth/register` over real HTTP on SQLite: the initial
/// access token made by the real `portico registration-token create`, every refusal, and that a
/// refusal changes nothing.
@Suite struct DynamicRegistrationTests {
    static let webMetadata = #"""
        {"client_name": "Shop", "redirect_uris": ["https://shop.example/cb"],
         "token_endpoint_auth_method": "client_secret_basic", "grant_types": ["authorization_code", "refresh_token"],
         "response_types": ["code"], "logo_uri": "https://shop.example/logo.png",
         "policy_uri": "https://shop.example/privacy", "tos_uri": "https://shop.example/terms",
         "subject_type": "pairwise",
         "id_token_signed_response_alg": "ES256", "software_statement_of_the_future": {"x": 1}}
        """#

    @Test func registersWithAnInitialAccessTokenAndTheClientSignsIn() async throws {
        try await ProviderHarness.with { harness in
            let made = try harness.portico(["registration-token", "create", "--uses", "1", "--json"])
            #expect(made.status == 0, "\(made.stderr)")
            let token = try #require(cliJSON(made.stdout)?.objectValue?["token"]?.stringValue)
            let discovery = try await harness.get("/.well-known/openid-configuration")
            #expect(discovery.string("registration_endpoint") == harness.issuer + "/oauth/register")

            // The harness's clock runs: the second may turn during the request.
            let before = Int64(harness.clock.now.timeIntervalSince1970)
            let reply = try await register(harness, Self.webMetadata, token: token)
            let after = Int64(harness.clock.now.timeIntervalSince1970)
            #expect(reply.status == 201, "\(reply.text)")
            let id = try #require(reply.string("client_id"))
            let secret = try #require(reply.string("client_secret"))
            #expect(reply.json["client_secret_expires_at"] == .integer(0))
            let issuedAt = try #require(reply.json["client_id_issued_at"]?.integerValue)
            #expect(issuedAt >= before && issuedAt <= after)
            #expect(reply.string("registration_client_uri") == harness.issuer + "/oauth/register/" + id)
            #expect(reply.string("registration_access_token")?.isEmpty == false)
            #expect(reply.string("client_name") == "Shop")
            #expect(reply.json["redirect_uris"] == ["https://shop.example/cb"])
            #expect(reply.string("token_endpoint_auth_method") == "client_secret_basic")
            #expect(reply.string("subject_type") == "pairwise")
            #expect(reply.string("id_token_signed_response_alg") == "ES256")
            #expect(reply.string("policy_uri") == "https://shop.example/privacy")
            #expect(reply.string("tos_uri") == "https://shop.example/terms")
            #expect(try harness.store.client(id: id)?.termsURL == "https://shop.example/terms")
            #expect(reply.json["software_statement_of_the_future"] == nil)
            #expect(reply.json["dpop_bound_access_tokens"] == .bool(false))
            #expect(reply.header("Cache-Control") == "no-store")

            let client = try #require(try harness.store.transaction { try $0.client(id: id) })
            #expect(client.verifiesSecret(secret))
            #expect(client.secretHash == SecretHash.digest(secret))
            #expect(client.subjectType == .pairwise)
            let user = try harness.addUser()
            let signedIn = try await harness.signIn(
                user, to: client, scopes: ["openid"], credentials: .basic(id: id, secret: secret))
            #expect(signedIn.string("access_token") != nil)

            // One use only.
            let again = try await register(harness, Self.webMetadata, token: token)
            #expect(again.status == 401)
            #expect(again.string("error") == "invalid_token")
        }
    }

    @Test func unknownMissingAndExpiredTokensAreRefusedWithoutAClient() async throws {
        try await ProviderHarness.with { harness in
            let expiring = try RegistrationTokenIssue(lifetime: 60).create(in: harness.store, now: harness.clock.now)
            let before = try harness.store.transaction { try $0.clients().count }
            for token in [nil, "not-a-token", ""] as [String?] {
                let reply = try await register(harness, Self.webMetadata, token: token)
                #expect(reply.status == 401, "\(token ?? "nil")")
                #expect(reply.string("error") == "invalid_token")
            }
            let basic = try await harness.request(
                "POST", "/oauth/register",
                headers: ["Authorization": "Basic eDp5", "Content-Type": "application/json"],
                rawBody: Self.webMetadata)
            #expect(basic.status == 401)
            harness.clock.advance(by: 61)
            let expired = try await register(harness, Self.webMetadata, token: expiring)
            #expect(expired.status == 401)
            #expect(expired.string("error") == "invalid_token")
            #expect(try harness.store.transaction { try $0.clients().count } == before)
        }
    }

    @Test func badMetadataIsRefusedInTheCommandLinesWordsAndChangesNothing() async throws {
        try await ProviderHarness.with { harness in
            let token = try RegistrationTokenIssue(uses: 1).create(in: harness.store)
            let before = try harness.store.transaction { try $0.clients().count }
            let cases: [(String, String)] = [
                (#"{"redirect_uris": ["http://shop.example/cb"]}"#, "invalid_redirect_uri"),
                (#"{"redirect_uris": ["https://shop.example/cb#x"]}"#, "invalid_redirect_uri"),
                (#"{"redirect_uris": ["/cb"]}"#, "invalid_redirect_uri"),
                (#"{"redirect_uris": []}"#, "invalid_redirect_uri"),
                (#"{"redirect_uris": "https://shop.example/cb"}"#, "invalid_client_metadata"),
                (
                    #"{"redirect_uris": ["https://a.example/cb"], "token_endpoint_auth_method": "tls_client_auth"}"#,
                    "invalid_client_metadata"
                ),
                (
                    #"{"redirect_uris": ["https://a.example/cb"], "grant_types": ["implicit"]}"#,
                    "invalid_client_metadata"
                ),
                (
                    #"{"redirect_uris": ["https://a.example/cb"], "response_types": ["token"]}"#,
                    "invalid_client_metadata"
                ),
                (
                    #"{"redirect_uris": ["https://a.example/cb"], "scope": "openid launch_missiles"}"#,
                    "invalid_client_metadata"
                ),
                (
                    #"{"redirect_uris": ["https://a.example/cb"], "token_endpoint_auth_method": "private_key_jwt"}"#,
                    "invalid_client_metadata"
                ),
                (
                    #"{"redirect_uris": ["https://a.example/cb"], "jwks_uri": "https://a.example/jwks"}"#,
                    "invalid_client_metadata"
                ),
                (
                    #"{"redirect_uris": ["https://a.example/cb"], "jwks": {"keys": [{"kty": "oct"}]}, "token_endpoint_auth_method": "private_key_jwt"}"#,
                    "invalid_client_metadata"
                ),
                (
                    #"{"redirect_uris": ["https://a.example/cb"], "logo_uri": "ftp://a.example/l.png"}"#,
                    "invalid_client_metadata"
                ),
                (#"{"redirect_uris": ["https://a.example/cb"], "subject_type": "secret"}"#, "invalid_client_metadata"),
                (
                    #"{"redirect_uris": ["https://a.example/cb"], "id_token_signed_response_alg": "none"}"#,
                    "invalid_client_metadata"
                ),
                (
                    #"{"redirect_uris": ["https://a.example/cb"], "backchannel_logout_uri": "https://10.0.0.1/logout"}"#,
                    "invalid_client_metadata"
                ),
                (#"{"redirect_uris": ["https://a.example/cb"], "client_name": 7}"#, "invalid_client_metadata"),
                (
                    #"{"redirect_uris": ["https://a.example/cb"], "dpop_bound_access_tokens": "yes"}"#,
                    "invalid_client_metadata"
                ),
                (#"["https://a.example/cb"]"#, "invalid_client_metadata"),
                ("not json", "invalid_client_metadata"),
            ]
            for (body, code) in cases {
                let reply = try await register(harness, body, token: token)
                #expect(reply.status == 400, "\(body): \(reply.text)")
                #expect(reply.string("error") == code, "\(body): \(reply.text)")
                #expect(reply.string("error_description")?.isEmpty == false, "\(body)")
            }
            #expect(try harness.store.transaction { try $0.clients().count } == before)

            // The words are the command line's: one validation path.
            let cli = try harness.portico([
                "client", "add", "--name", "Shop", "--redirect-uri", "http://shop.example/cb",
            ])
            #expect(cli.status == 2)
            let http = try await register(harness, #"{"redirect_uris": ["http://shop.example/cb"]}"#, token: token)
            let words = try #require(http.string("error_description"))
            #expect(cli.stderr.contains(words), "\(cli.stderr) vs \(words)")

            // The refusals used nothing: the one-use token still registers.
            let good = try await register(harness, Self.webMetadata, token: token)
            #expect(good.status == 201, "\(good.text)")
        }
    }

    /// RFC 9449 §5.2's `dpop_bound_access_tokens`: the app is registered as `client add --dpop`
    /// makes it, so its token requests without a proof are refused.
    @Test func dpopBoundAccessTokensMakesTheClientRequireProofs() async throws {
        try await ProviderHarness.with { harness in
            let made = try harness.portico(["registration-token", "create", "--json"])
            let token = try #require(cliJSON(made.stdout)?.objectValue?["token"]?.stringValue)
            let body = #"""
                {"client_name": "Bound", "redirect_uris": ["https://bound.example/cb"],
                 "grant_types": ["client_credentials"], "response_types": [], "dpop_bound_access_tokens": true}
                """#
            let reply = try await register(harness, body, token: token)
            #expect(reply.status == 201, "\(reply.text)")
            #expect(reply.json["dpop_bound_access_tokens"] == .bool(true))
            let id = try #require(reply.string("client_id"))
            let client = try #require(try harness.store.transaction { try $0.client(id: id) })
            #expect(client.requiresDPoP)
        }
    }

    /// `security_profile: fapi2` registers what `client add --profile fapi2 --jwks` makes: a
    /// `private_key_jwt` client (the method it implies when none is named) bound to PAR and
    /// DPoP; a member contradicting the profile, a public client or an unknown profile is
    /// refused and adds no client.
    @Test func securityProfileFAPI2RegistersTheProfilesClient() async throws {
        try await ProviderHarness.with { harness in
            let token = try RegistrationTokenIssue().create(in: harness.store)
            let jwks = JWKSet(keys: [try SigningKey.generate(.es256).publicJWK]).jsonString
            func metadata(_ extra: String) -> String {
                #"{"client_name": "Bank", "redirect_uris": ["https://bank.example/cb"], "jwks": \#(jwks)\#(extra)}"#
            }
            let before = try harness.store.transaction { try $0.clients() }.count
            let refusals = [
                #", "security_profile": "fapi2", "dpop_bound_access_tokens": false"#,
                #", "security_profile": "fapi2", "require_pushed_authorization_requests": false"#,
                #", "security_profile": "fapi2", "token_endpoint_auth_method": "client_secret_basic""#,
                #", "security_profile": "fapi2", "id_token_signed_response_alg": "RS256""#,
                #", "security_profile": "fapi1""#,
                #", "security_profile": 2"#,
            ]
            for extra in refusals {
                let reply = try await register(harness, metadata(extra), token: token)
                #expect(
                    reply.status == 400 && reply.string("error") == "invalid_client_metadata", "\(extra): \(reply.text)"
                )
            }
            let open = try await register(
                harness,
                #"{"redirect_uris": ["https://bank.example/cb"], "token_endpoint_auth_method": "none", "security_profile": "fapi2"}"#,
                token: token)
            #expect(open.status == 400 && open.string("error") == "invalid_client_metadata", "\(open.text)")
            #expect(try harness.store.transaction { try $0.clients() }.count == before)

            let reply = try await register(harness, metadata(#", "security_profile": "fapi2""#), token: token)
            #expect(reply.status == 201, "\(reply.text)")
            #expect(reply.string("security_profile") == "fapi2")
            #expect(reply.string("token_endpoint_auth_method") == "private_key_jwt")
            #expect(reply.string("id_token_signed_response_alg") == "PS256")
            #expect(reply.json["dpop_bound_access_tokens"] == .bool(true))
            #expect(reply.json["require_pushed_authorization_requests"] == .bool(true))
            #expect(reply.json["client_secret"] == nil)
            let id = try #require(reply.string("client_id"))
            let client = try #require(try harness.store.transaction { try $0.client(id: id) })
            #expect(client.securityProfile == .fapi2 && client.requiresPAR && client.requiresDPoP)

            // The profile holds: a request that was not pushed gets an error page, not a redirect.
            let unpushed = try await harness.get(
                "/oauth/authorize?client_id=\(id)&response_type=code&redirect_uri=https%3A%2F%2Fbank.example%2Fcb"
                    + "&scope=openid&code_challenge=\(String(repeating: "a", count: 43))&code_challenge_method=S256")
            #expect(unpushed.status == 400, "\(unpushed.status) \(unpushed.text.prefix(200))")
            #expect(unpushed.header("Location") == nil)
        }
    }

    @Test func openRegistrationNeedsNoTokenAndPublicClientsGetNoSecret() async throws {
        let configuration = ProviderConfiguration.testing { $0.allowsOpenRegistration = true }
        try await ProviderHarness.with(configuration: configuration) { harness in
            let reply = try await register(
                harness,
                #"{"client_name": "CLI", "redirect_uris": ["http://127.0.0.1/cb"], "token_endpoint_auth_method": "none"}"#,
                token: nil)
            #expect(reply.status == 201, "\(reply.text)")
            #expect(reply.json["client_secret"] == nil)
            #expect(reply.string("token_endpoint_auth_method") == "none")
            let id = try #require(reply.string("client_id"))
            #expect(try harness.store.transaction { try $0.client(id: id) }?.type == .public)
            // A token that is sent must still be good.
            let bad = try await register(harness, Self.webMetadata, token: "wrong")
            #expect(bad.status == 401)
        }
        try await ProviderHarness.with { harness in
            let closed = try await register(harness, Self.webMetadata, token: nil)
            #expect(closed.status == 401)
        }
    }

    @Test func openRegistrationIsThrottledPerAddressAndARefusalAddsNoClient() async throws {
        let configuration = ProviderConfiguration.testing { $0.allowsOpenRegistration = true }
        try await ProviderHarness.with(configuration: configuration) { harness in
            let metadata =
                #"{"client_name": "Agent", "redirect_uris": ["http://127.0.0.1/cb"], "token_endpoint_auth_method": "none"}"#
            // A refused registration counts as well: a flood of bad ones is still a flood.
            let bad = try await register(harness, #"{"redirect_uris": ["ftp://x.example/cb"]}"#, token: nil)
            #expect(bad.status == 400)
            for _ in 1..<AttemptThrottle.openRegistrationLimit {
                let reply = try await register(harness, metadata, token: nil)
                #expect(reply.status == 201, "\(reply.text)")
            }
            let before = try harness.store.clients().count
            let refused = try await register(harness, metadata, token: nil)
            #expect(refused.status == 429)
            #expect(refused.string("error") == "temporarily_unavailable")
            let retryAfter = try #require(refused.header("Retry-After").flatMap { Int($0) })
            #expect(retryAfter > 0 && retryAfter <= 3600)
            #expect(try harness.store.clients().count == before)
            // An initial access token is the operator's say: it is not throttled.
            let token = try RegistrationTokenIssue(uses: 1).create(in: harness.store)
            #expect(try await register(harness, metadata, token: token).status == 201)
            // The window passes, and the address may register again.
            harness.clock.advance(by: AttemptThrottle.openRegistrationWindow + 1)
            #expect(try await register(harness, metadata, token: nil).status == 201)
        }
    }

    @Test func aBase64EncodedTokenAsPyoidcSendsItIsAccepted() async throws {
        try await ProviderHarness.with { harness in
            let token = try RegistrationTokenIssue(uses: 1).create(in: harness.store)
            let encoded = Data(token.utf8).base64EncodedString()
            let wrong = Data("not-the-token".utf8).base64EncodedString()
            #expect(try await register(harness, Self.webMetadata, token: wrong).status == 401)
            #expect(try await register(harness, Self.webMetadata, token: encoded).status == 201)
            #expect(try await register(harness, Self.webMetadata, token: token).status == 401)
        }
    }

    @Test func theCommandLineRefusesBadLimits() throws {
        let database = try CLIDatabase()
        for arguments in [["--uses", "0"], ["--uses", "x"], ["--expires", "soon"]] {
            let result = try database.portico(["registration-token", "create"] + arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(!result.stderr.isEmpty)
        }
        let plain = try database.portico(["registration-token", "create", "--expires", "1h"])
        #expect(plain.status == 0)
        #expect(plain.stdout.contains("registration token: "))
    }
}

/// POSTs `body` to the registration endpoint, with `token` as a bearer token when given.
func register(_ harness: ProviderHarness, _ body: String, token: String?) async throws -> TestReply {
    var headers = ["Content-Type": "application/json"]
    if let token { headers["Authorization"] = "Bearer \(token)" }
    return try await harness.request("POST", "/oauth/register", headers: headers, rawBody: body)
}
