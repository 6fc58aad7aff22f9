import Foundation
import PorticoCrypto
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

/// Pushed authorization requests (RFC 9126) end to end: `POST /oauth/par` authenticates the
/// client and validates the request as `/oauth/authorize` would, and `/oauth/authorize` then
/// takes the pushed parameters once, ignoring whatever else the browser's URL says.
@Suite struct PushedAuthorizationTests {
    /// The authorization parameters a client pushes, without `client_id`.
    static func authorizationParameters(
        redirectURI: String, pkce: PKCEPair, scope: String = "openid profile", state: String = "pushed-state"
    ) -> [(String, String)] {
        [
            ("response_type", "code"), ("redirect_uri", redirectURI), ("scope", scope), ("state", state),
            ("nonce", "pushed-nonce"), ("code_challenge", pkce.challenge), ("code_challenge_method", "S256"),
        ]
    }

    /// `/oauth/authorize` with a `request_uri` (and `extra` parameters a browser's URL might carry).
    static func authorizePath(clientID: String, requestURI: String, extra: [(String, String)] = []) -> String {
        var components = URLComponents()
        components.path = "/oauth/authorize"
        components.queryItems =
            [URLQueryItem(name: "client_id", value: clientID), URLQueryItem(name: "request_uri", value: requestURI)]
            + extra.map { URLQueryItem(name: $0.0, value: $0.1) }
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.string ?? "/oauth/authorize"
    }

    /// Pushes `form` as `client`.
    static func push(
        _ harness: ProviderHarness, _ form: [(String, String)], client: ClientCredentials,
        headers: [String: String] = [:]
    ) async throws -> TestReply {
        try await harness.request("POST", "/oauth/par", form: form, client: client, headers: headers)
    }

    /// Signs in and allows at the pages `start` (the reply to `/oauth/authorize`) leads to;
    /// returns the final redirect to the app.
    static func signInAndAllow(_ browser: TestBrowser, from start: TestReply) async throws -> TestReply {
        var location = try #require(start.location, "\(start.status) \(start.text)")
        if location.hasPrefix("/login") {
            let login = try await browser.signIn(at: location)
            location = try #require(login.location, "\(login.status) \(login.text)")
        }
        return try await browser.decide(at: location, "allow")
    }

    @Test func aPushedRequestRunsTheCodeFlowAndIgnoresTheURLsOtherParameters() async throws {
        try await ProviderHarness.with { harness in
            _ = try harness.addUser()
            let client = try harness.addConfidentialClient()
            let pkce = PKCEPair()
            let pushed = try await Self.push(
                harness, Self.authorizationParameters(redirectURI: client.redirectURIs[0], pkce: pkce),
                client: .of(client))
            #expect(pushed.status == 201, "\(pushed.text)")
            #expect(pushed.header("Cache-Control") == "no-store")
            #expect(pushed.json["expires_in"] == 60)
            let requestURI = try #require(pushed.string("request_uri"))
            #expect(requestURI.hasPrefix("urn:ietf:params:oauth:request_uri:"))

            // What the URL says besides client_id is ignored (RFC 9126 §4): scope, state, redirect.
            let browser = harness.browser()
            let start = try await browser.get(
                Self.authorizePath(
                    clientID: client.id, requestURI: requestURI,
                    extra: [
                        ("scope", "openid email"), ("state", "url-state"), ("redirect_uri", "https://evil.example/cb"),
                        ("code_challenge", PKCEPair().challenge),
                    ]))
            let done = try await Self.signInAndAllow(browser, from: start)
            let location = try #require(done.location)
            #expect(location.hasPrefix("https://shop.example/callback?"), "\(location)")
            #expect(done.redirectParameters["state"] == "pushed-state")
            #expect(done.redirectParameters["iss"] == harness.issuer)
            let code = try #require(done.redirectParameters["code"])
            let tokens = try await harness.token(
                [
                    ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", client.redirectURIs[0]),
                    ("code_verifier", pkce.verifier),
                ], client: .of(client))
            #expect(tokens.status == 200, "\(tokens.text)")
            #expect(tokens.string("scope") == "openid profile")
            #expect(tokens.string("id_token") != nil)

            // Single use: the same request_uri again is a page, never a redirect.
            let again = try await browser.get(Self.authorizePath(clientID: client.id, requestURI: requestURI))
            #expect(again.status == 400)
            #expect(again.location == nil)
            #expect(again.text.contains("expired"))
        }
    }

    @Test func pushingNeedsTheClientToAuthenticateAsAtTheTokenEndpoint() async throws {
        try await ProviderHarness.with { harness in
            let client = try harness.addConfidentialClient()
            let form = Self.authorizationParameters(redirectURI: client.redirectURIs[0], pkce: PKCEPair())
            let attempts: [(String, ClientCredentials)] = [
                ("none", .none), ("only the id", .id(client.id)), ("wrong secret", .basic(id: client.id, secret: "x")),
                ("unknown client", .post(id: "nobody", secret: "x")),
            ]
            for (name, credentials) in attempts {
                let reply = try await Self.push(harness, form, client: credentials)
                #expect(reply.status == 401, "\(name): \(reply.text)")
                #expect(reply.string("error") == "invalid_client", "\(name)")
            }
            // client_secret_post works as Basic does.
            let posted = try await Self.push(
                harness, form, client: .post(id: client.id, secret: ProviderHarness.confidentialSecret))
            #expect(posted.status == 201, "\(posted.text)")
        }
    }

    @Test func aPublicClientPushesWithItsClientID() async throws {
        try await ProviderHarness.with { harness in
            let client = try harness.addPublicClient()
            let reply = try await Self.push(
                harness, Self.authorizationParameters(redirectURI: "http://127.0.0.1:5000/callback", pkce: PKCEPair()),
                client: .id(client.id))
            #expect(reply.status == 201, "\(reply.text)")
        }
    }

    @Test(
        arguments: [
            ("code_challenge", nil, "invalid_request"),
            ("code_challenge_method", "plain", "invalid_request"),
            ("scope", "openid unknown_thing", "invalid_scope"),
            ("response_type", "token", "unsupported_response_type"),
            ("redirect_uri", "https://evil.example/callback", "invalid_request"),
            ("request_uri", "urn:ietf:params:oauth:request_uri:abc", "invalid_request"),
            ("dpop_jkt", "not-a-thumbprint", "invalid_request"),
        ] as [(String, String?, String)])
    func aBadPushIsAJSONError(name: String, value: String?, error: String) async throws {
        try await ProviderHarness.with { harness in
            let client = try harness.addConfidentialClient()
            var form = Self.authorizationParameters(redirectURI: client.redirectURIs[0], pkce: PKCEPair())
            form.removeAll { $0.0 == name }
            if let value { form.append((name, value)) }
            let reply = try await Self.push(harness, form, client: .of(client))
            #expect(reply.status == 400, "\(reply.text)")
            #expect(reply.string("error") == error, "\(reply.text)")
            #expect(reply.location == nil)
            #expect(reply.string("request_uri") == nil)
        }
    }

    @Test func aRepeatedParameterIsRefused() async throws {
        try await ProviderHarness.with { harness in
            let client = try harness.addConfidentialClient()
            let form =
                Self.authorizationParameters(redirectURI: client.redirectURIs[0], pkce: PKCEPair()) + [
                    ("scope", "email")
                ]
            let reply = try await Self.push(harness, form, client: .of(client))
            #expect(reply.status == 400)
            #expect(reply.string("error") == "invalid_request")
        }
    }

    @Test func aRequestURIExpiresAfterSixtySeconds() async throws {
        let clock = TestClock()
        try await ProviderHarness.with(clock: clock) { harness in
            let client = try harness.addConfidentialClient()
            let form = Self.authorizationParameters(redirectURI: client.redirectURIs[0], pkce: PKCEPair())
            let early = try #require(try await Self.push(harness, form, client: .of(client)).string("request_uri"))
            let late = try #require(try await Self.push(harness, form, client: .of(client)).string("request_uri"))
            clock.advance(by: 58)
            let inTime = try await harness.browser().get(Self.authorizePath(clientID: client.id, requestURI: early))
            #expect(inTime.status == 302, "\(inTime.text)")
            #expect(inTime.location?.hasPrefix("/login") == true)
            clock.advance(by: 3)
            let expired = try await harness.browser().get(Self.authorizePath(clientID: client.id, requestURI: late))
            #expect(expired.status == 400)
            #expect(expired.location == nil)
            #expect(expired.text.contains("expired"))
        }
    }

    @Test func aRequestURIServesOnlyTheClientThatPushedIt() async throws {
        try await ProviderHarness.with { harness in
            let client = try harness.addConfidentialClient()
            let other = try harness.addClient(name: "Other App")
            let form = Self.authorizationParameters(redirectURI: client.redirectURIs[0], pkce: PKCEPair())
            let requestURI = try #require(try await Self.push(harness, form, client: .of(client)).string("request_uri"))
            let browser = harness.browser()
            for (clientID, uri) in [
                (other.id, requestURI), ("", requestURI), (client.id, "urn:ietf:params:oauth:request_uri:unknown"),
                (client.id, "urn:ietf:params:oauth:request_uri:"),
            ] {
                let reply = try await browser.get(Self.authorizePath(clientID: clientID, requestURI: uri))
                #expect(reply.status == 400, "\(clientID) \(uri)")
                #expect(reply.location == nil, "\(clientID) \(uri)")
            }
            // The other client's try did not use it up.
            let mine = try await browser.get(Self.authorizePath(clientID: client.id, requestURI: requestURI))
            #expect(mine.status == 302, "\(mine.text)")
        }
    }

    @Test func aClientAddedWithRequirePARMustPush() async throws {
        try await ProviderHarness.with { harness in
            _ = try harness.addUser()
            let added = try PorticoProcess.run([
                "client", "add", "--name", "Pushy", "--redirect-uri", "https://pushy.example/cb", "--require-par",
                "--json", "--database", harness.databaseURL,
            ])
            #expect(added.status == 0, "\(added.stderr)")
            let object = try #require(JSONValue(parsing: Array(added.stdout.utf8))?.objectValue)
            let clientID = try #require(object["client_id"]?.stringValue)
            let secret = try #require(object["client_secret"]?.stringValue)
            let client = try #require(try harness.store.client(id: clientID))
            #expect(client.requiresPAR)
            let listed = try PorticoProcess.run(["client", "list", "--json", "--database", harness.databaseURL])
            #expect(listed.stdout.contains("\"require_pushed_authorization_requests\": true"), "\(listed.stdout)")

            let browser = harness.browser()
            let pkce = PKCEPair()
            let unpushed = try await browser.get(TestBrowser.authorizePath(client: client, pkce: pkce))
            #expect(unpushed.status == 400, "\(unpushed.text)")
            #expect(unpushed.location == nil)

            let pushed = try await Self.push(
                harness, Self.authorizationParameters(redirectURI: "https://pushy.example/cb", pkce: pkce),
                client: .basic(id: clientID, secret: secret))
            let requestURI = try #require(pushed.string("request_uri"), "\(pushed.text)")
            let start = try await browser.get(Self.authorizePath(clientID: clientID, requestURI: requestURI))
            let done = try await Self.signInAndAllow(browser, from: start)
            #expect(done.redirectParameters["code"] != nil, "\(done.status) \(done.location ?? "")")
        }
    }

    @Test func aDPoPProofAtPARBindsTheCodeToItsKey() async throws {
        try await ProviderHarness.with { harness in
            _ = try harness.addUser()
            let client = try harness.addPublicClient()
            let key = try DPoPProver()
            let thief = try DPoPProver()
            let parURL = harness.issuer + "/oauth/par"
            let pkce = PKCEPair()
            let redirectURI = "http://127.0.0.1:5000/callback"
            let form = Self.authorizationParameters(redirectURI: redirectURI, pkce: pkce)

            // A proof of one key and dpop_jkt naming another contradict each other.
            let mismatched = try await Self.push(
                harness, form + [("dpop_jkt", try thief.thumbprint)], client: .id(client.id),
                headers: ["DPoP": key.proof("POST", parURL)])
            #expect(mismatched.status == 400)
            #expect(mismatched.string("error") == "invalid_dpop_proof", "\(mismatched.text)")
            let badProof = try await Self.push(
                harness, form, client: .id(client.id),
                headers: ["DPoP": key.proof("POST", harness.issuer + "/oauth/token")])
            #expect(badProof.string("error") == "invalid_dpop_proof", "\(badProof.text)")

            let pushed = try await Self.push(
                harness, form, client: .id(client.id), headers: ["DPoP": key.proof("POST", parURL)])
            let requestURI = try #require(pushed.string("request_uri"), "\(pushed.text)")
            let browser = harness.browser()
            let start = try await browser.get(Self.authorizePath(clientID: client.id, requestURI: requestURI))
            let done = try await Self.signInAndAllow(browser, from: start)
            let code = try #require(done.redirectParameters["code"], "\(done.status) \(done.location ?? "")")
            #expect(try harness.store.authorizationCode(code)?.dpopKeyThumbprint == (try key.thumbprint))
            let tokenURL = harness.issuer + "/oauth/token"
            let redeem = [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
                ("code_verifier", pkce.verifier),
            ]
            let stolen = try await harness.token(redeem, client: .id(client.id), proof: thief.proof("POST", tokenURL))
            #expect(stolen.string("error") == "invalid_dpop_proof", "\(stolen.text)")
            let tokens = try await harness.token(redeem, client: .id(client.id), proof: key.proof("POST", tokenURL))
            #expect(tokens.status == 200, "\(tokens.text)")
            #expect(tokens.string("token_type") == "DPoP")
        }
    }

    /// RFC 9126 §6: dynamic registration takes `require_pushed_authorization_requests` into the
    /// same column as `--require-par`, answers it, and refuses a value that is not a boolean.
    @Test func registrationMetadataMayRequirePAR() async throws {
        try await ProviderHarness.with { harness in
            let token = try RegistrationTokenIssue(uses: 2).create(in: harness.store)
            let refused = try await register(
                harness, #"{"redirect_uris": ["https://reg.example/cb"], "require_pushed_authorization_requests": 1}"#,
                token: token)
            #expect(refused.status == 400)
            #expect(refused.string("error") == "invalid_client_metadata")
            let reply = try await register(
                harness,
                #"{"redirect_uris": ["https://reg.example/cb"], "require_pushed_authorization_requests": true}"#,
                token: token)
            #expect(reply.status == 201, "\(reply.text)")
            #expect(reply.json["require_pushed_authorization_requests"] == .bool(true))
            let id = try #require(reply.string("client_id"))
            #expect(try harness.store.client(id: id)?.requiresPAR == true)
        }
    }

    /// `serve --require-par`: every app must push, and discovery says so.
    @Test func theServerMayRequirePAROfEveryApp() async throws {
        let configuration = ProviderConfiguration.testing { $0.requiresPAR = true }
        try await ProviderHarness.with(configuration: configuration) { harness in
            let document = try await harness.get("/.well-known/openid-configuration").json
            #expect(document["require_pushed_authorization_requests"] == true)
            let client = try harness.addConfidentialClient()
            let pkce = PKCEPair()
            let browser = harness.browser()
            let unpushed = try await browser.get(TestBrowser.authorizePath(client: client, pkce: pkce))
            #expect(unpushed.status == 400)
            #expect(unpushed.location == nil)
            let pushed = try await Self.push(
                harness, Self.authorizationParameters(redirectURI: client.redirectURIs[0], pkce: pkce),
                client: .of(client))
            let requestURI = try #require(pushed.string("request_uri"), "\(pushed.text)")
            let start = try await browser.get(Self.authorizePath(clientID: client.id, requestURI: requestURI))
            #expect(start.status == 302, "\(start.text)")
            #expect(start.location?.hasPrefix("/login") == true)
        }
    }
}
