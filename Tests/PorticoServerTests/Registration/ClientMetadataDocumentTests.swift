import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): a `client_id`
/// that is the https URL of the client's JSON metadata, fetched by the provider from a real
/// https server on loopback (``HTTPSDocumentServer``), over real HTTP to the provider.
@Suite struct ClientMetadataDocumentTests {
    static let redirectURI = "https://agent.example/callback"

    /// A provider that fetches documents from `server` (loopback allowed, its certificate
    /// trusted, a 2 s limit), unless `loopback` is false.
    func withProvider(
        _ server: HTTPSDocumentServer, loopback: Bool = true, _ body: (ProviderHarness) async throws -> Void
    ) async throws {
        let configuration = ProviderConfiguration.testing {
            $0.allowsLoopbackClientMetadata = loopback
            $0.outboundTrustedCertificatesFile = server.certificate
            $0.documentFetchTimeout = .seconds(2)
        }
        try await ProviderHarness.with(configuration: configuration) { try await body($0) }
    }

    /// The document of an agent at `url`.
    static func document(_ url: String, name: String = "Research Agent", extra: String = "") -> String {
        """
        {"client_id": "\(url)", "client_name": "\(name)", "redirect_uris": ["\(redirectURI)"],
         "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
         "token_endpoint_auth_method": "none"\(extra)}
        """
    }

    /// The client to build authorization requests for (it need not be stored).
    static func client(_ url: String) -> Client {
        Client(id: url, name: "agent", type: .public, redirectURIs: [redirectURI])
    }

    func storedClient(_ harness: ProviderHarness, _ id: String) throws -> Client? {
        try harness.store.transaction { try $0.client(id: id) }
    }

    @Test func anAgentSignsAPersonInThroughItsDocumentAndIsUnverifiedUntilTheOperatorVerifiesIt() async throws {
        let server = try HTTPSDocumentServer()
        let url = server.url("/agent/client.json")
        try server.serve("/agent/client.json", body: Self.document(url))
        try await withProvider(server) { harness in
            _ = try harness.addUser()
            let browser = harness.browser()
            let pkce = PKCEPair()
            let start = try await browser.get(TestBrowser.authorizePath(client: Self.client(url), pkce: pkce))
            let login = try await browser.signIn(at: try #require(start.location, "\(start.status) \(start.text)"))
            let consentLocation = try #require(login.location)
            let consent = try await browser.get(consentLocation)
            #expect(consent.text.contains("Research Agent"))
            #expect(consent.text.contains("Portico has not verified this app."))
            let allowed = try await browser.decide(at: consentLocation, "allow")
            let code = try #require(allowed.redirectParameters["code"], "\(allowed.status) \(allowed.text)")
            #expect(allowed.location?.hasPrefix(Self.redirectURI) == true)
            let token = try await harness.token(
                [
                    ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", Self.redirectURI),
                    ("code_verifier", pkce.verifier), ("client_id", url),
                ], client: .none)
            #expect(token.status == 200, "\(token.text)")
            #expect(token.string("access_token") != nil)
            let stored = try #require(try storedClient(harness, url))
            #expect(stored.type == .public && !stored.isVerified && stored.redirectURIs == [Self.redirectURI])

            let verify = try harness.portico(["client", "verify", url])
            #expect(verify.status == 0, "\(verify.stderr)")
            _ = try harness.addUser(email: "second@example.com")
            let other = harness.browser()
            let again = try await other.get(TestBrowser.authorizePath(client: Self.client(url)))
            let signedIn = try await other.signIn(at: try #require(again.location), email: "second@example.com")
            let verified = try await other.get(try #require(signedIn.location))
            #expect(verified.text.contains("Research Agent"))
            #expect(!verified.text.contains("Portico has not verified this app."))

            let suspend = try harness.portico(["client", "suspend", url])
            #expect(suspend.status == 0, "\(suspend.stderr)")
            let suspended = try await other.get(TestBrowser.authorizePath(client: Self.client(url)))
            #expect(suspended.status == 400 && suspended.location == nil)
        }
    }

    @Test func discoveryAdvertisesMetadataDocuments() async throws {
        try await ProviderHarness.with { harness in
            let discovery = try await harness.get("/.well-known/openid-configuration")
            #expect(discovery.json["client_id_metadata_document_supported"] == .bool(true))
        }
    }

    @Test func aRedirectURIMissingFromTheDocumentIsRefusedWithAPage() async throws {
        let server = try HTTPSDocumentServer()
        let url = server.url("/agent.json")
        try server.serve("/agent.json", body: Self.document(url))
        try await withProvider(server) { harness in
            let reply = try await harness.browser().get(
                TestBrowser.authorizePath(
                    client: Self.client(url), overrides: ["redirect_uri": "https://agent.example/other"]))
            #expect(reply.status == 400 && reply.location == nil, "\(reply.status)")
            #expect(reply.text.contains("not registered"), "\(reply.text)")
        }
    }

    /// Each bad document or URL: the authorize endpoint's page (never a redirect), saying why;
    /// `invalid_client` at the token endpoint; and no client stored.
    @Test func badDocumentsAndURLsAreRefusedAndStoreNothing() async throws {
        let server = try HTTPSDocumentServer()
        let mismatch = server.url("/mismatch.json")
        try server.serve("/mismatch.json", body: Self.document(server.url("/other.json")))
        let large = server.url("/large.json")
        try server.serve(
            "/large.json", body: Self.document(large, extra: #", "padding": "\#(String(repeating: "a", count: 6000))""#)
        )
        let notJSON = server.url("/not-json.json")
        try server.serve("/not-json.json", body: "<html>hello</html>")
        let secret = server.url("/secret.json")
        try server.serve("/secret.json", body: Self.document(secret, extra: #", "client_secret": "s""#))
        let missing = server.url("/missing.json")
        let cases: [(url: String, words: String)] = [
            (mismatch, "client_id is not the document&#39;s URL"),
            (large, "larger than 5120 bytes"),
            (notJSON, "not a JSON object"),
            (secret, "must not name a client secret"),
            (missing, "answered HTTP 404"),
            ("http://127.0.0.1:\(server.port)/agent.json", "must use https"),
            ("https://10.0.0.1/agent.json", "private, link-local or reserved"),
            ("https://169.254.169.254/latest/meta-data", "private, link-local or reserved"),
            ("https://[fd00::1]/agent.json", "private, link-local or reserved"),
        ]
        try await withProvider(server) { harness in
            for (url, words) in cases {
                let reply = try await harness.browser().get(TestBrowser.authorizePath(client: Self.client(url)))
                #expect(reply.status == 400 && reply.location == nil, "\(url): \(reply.status)")
                #expect(reply.text.contains(words), "\(url): \(reply.text)")
                let token = try await harness.token(
                    [
                        ("grant_type", "authorization_code"), ("code", "x"), ("redirect_uri", Self.redirectURI),
                        ("code_verifier", PKCEPair().verifier), ("client_id", url),
                    ], client: .none)
                #expect(token.status == 401 && token.string("error") == "invalid_client", "\(url): \(token.text)")
                #expect(try storedClient(harness, url) == nil, "\(url)")
            }
        }
    }

    @Test func loopbackIsRefusedWithoutTheTestOption() async throws {
        let server = try HTTPSDocumentServer()
        let url = server.url("/agent.json")
        try server.serve("/agent.json", body: Self.document(url))
        try await withProvider(server, loopback: false) { harness in
            for url in [url, "https://[::1]:\(server.port)/agent.json", "https://localhost:\(server.port)/agent.json"] {
                let reply = try await harness.browser().get(TestBrowser.authorizePath(client: Self.client(url)))
                #expect(reply.status == 400 && reply.location == nil, "\(url): \(reply.status)")
                #expect(reply.text.contains("--allow-loopback-client-metadata"), "\(url): \(reply.text)")
                #expect(try storedClient(harness, url) == nil)
            }
            #expect(server.requests(to: "/agent.json") == 0)
        }
    }

    @Test func aServerThatNeverAnswersIsGivenUpWithinTheLimit() async throws {
        let server = try HTTPSDocumentServer()
        let url = server.url("/slow.json")
        try server.stall("/slow.json")
        try await withProvider(server) { harness in
            let started = ContinuousClock.now
            let reply = try await harness.browser().get(TestBrowser.authorizePath(client: Self.client(url)))
            let waited = ContinuousClock.now - started
            #expect(reply.status == 400 && reply.location == nil)
            #expect(reply.text.contains("no answer in time"), "\(reply.text)")
            // The limit is 2 s; the server would hold the request for a minute.
            #expect(waited < .seconds(15), "\(waited)")
            #expect(server.requests(to: "/slow.json") == 1)
            #expect(try storedClient(harness, url) == nil)
            // Asked again at once: the failure is remembered, the server not asked again.
            let again = try await harness.browser().get(TestBrowser.authorizePath(client: Self.client(url)))
            #expect(again.status == 400 && again.text.contains("no answer in time"))
            #expect(server.requests(to: "/slow.json") == 1)
        }
    }

    /// A client's first use is at the authorization endpoint: a token request naming a document
    /// never seen is `invalid_client` without a fetch (no epoll thread waits on an unknown server).
    @Test func theTokenEndpointFetchesNoDocumentOfAClientNeverSeen() async throws {
        let server = try HTTPSDocumentServer()
        let url = server.url("/agent.json")
        try server.serve("/agent.json", body: Self.document(url))
        try await withProvider(server) { harness in
            let token = try await harness.token(
                [
                    ("grant_type", "authorization_code"), ("code", "x"), ("redirect_uri", Self.redirectURI),
                    ("code_verifier", PKCEPair().verifier), ("client_id", url),
                ], client: .none)
            #expect(token.status == 401 && token.string("error") == "invalid_client", "\(token.text)")
            #expect(server.requests(to: "/agent.json") == 0)
            #expect(try storedClient(harness, url) == nil)
        }
    }

    @Test func documentsAreKeptForTheirMaxAgeAndNotKeptWithNoStore() async throws {
        let server = try HTTPSDocumentServer()
        let kept = server.url("/kept.json")
        try server.serve("/kept.json", body: Self.document(kept), headers: ["Cache-Control": "public, max-age=600"])
        let unkept = server.url("/unkept.json")
        try server.serve("/unkept.json", body: Self.document(unkept), headers: ["Cache-Control": "no-store"])
        try await withProvider(server) { harness in
            for _ in 0..<2 {
                for url in [kept, unkept] {
                    let reply = try await harness.browser().get(TestBrowser.authorizePath(client: Self.client(url)))
                    #expect(reply.location?.hasPrefix("/login") == true, "\(url): \(reply.status) \(reply.text)")
                }
            }
            #expect(server.requests(to: "/kept.json") == 1)
            #expect(server.requests(to: "/unkept.json") == 2)
            // A change at the app reaches the row when the document is fetched again.
            try server.serve("/unkept.json", body: Self.document(unkept, name: "Renamed Agent"))
            _ = try await harness.browser().get(TestBrowser.authorizePath(client: Self.client(unkept)))
            #expect(try storedClient(harness, unkept)?.name == "Renamed Agent")
        }
    }

    /// The real `portico serve`: `--allow-loopback-client-metadata` (named in its help as for
    /// tests only) lets it fetch a document on 127.0.0.1 (trusting the test's certificate through
    /// OpenSSL's `SSL_CERT_FILE`); without it the same request is refused, naming the option.
    @Test func serveFetchesFromLoopbackOnlyWithTheTestOption() async throws {
        let help = try PorticoProcess.run(["serve", "--help"])
        #expect(help.stdout.contains("--allow-loopback-client-metadata"), "\(help.stdout)")
        #expect(help.stdout.contains("FOR TESTS ONLY"))
        let server = try HTTPSDocumentServer()
        let url = server.url("/agent.json")
        try server.serve("/agent.json", body: Self.document(url))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("portico-cimd-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for allowed in [false, true] {
            let serve = try ServeProcess(
                databaseURL: "sqlite:\(directory.path)/portico-\(allowed).db",
                arguments: allowed ? ["--allow-loopback-client-metadata"] : [],
                environment: ["SSL_CERT_FILE": server.certificate])
            defer { _ = serve.terminate() }
            let port = try #require(UInt16(serve.base.split(separator: ":").last ?? ""))
            let reply = try RawHTTPClient.send(
                port: port, method: "GET", path: TestBrowser.authorizePath(client: Self.client(url)), headers: [:],
                body: nil)
            if allowed {
                #expect(reply.status == 302 && reply.location?.hasPrefix("/login") == true, "\(reply.text)")
            } else {
                #expect(reply.status == 400 && reply.text.contains("--allow-loopback-client-metadata"), "\(reply.text)")
            }
        }
        #expect(server.requests(to: "/agent.json") == 1)
    }

    /// A document sent chunked is read whole; a chunked one over the limit is refused.
    @Test func aChunkedDocumentIsReadWithinTheLimit() async throws {
        let server = try HTTPSDocumentServer()
        let url = server.url("/chunked.json")
        try server.serve("/chunked.json", body: Self.document(url))
        try server.chunk("/chunked.json")
        let large = server.url("/chunked-large.json")
        try server.serve(
            "/chunked-large.json",
            body: Self.document(large, extra: #", "padding": "\#(String(repeating: "a", count: 6000))""#))
        try server.chunk("/chunked-large.json")
        try await withProvider(server) { harness in
            let reply = try await harness.browser().get(TestBrowser.authorizePath(client: Self.client(url)))
            #expect(reply.location?.hasPrefix("/login") == true, "\(reply.status) \(reply.text)")
            let refused = try await harness.browser().get(TestBrowser.authorizePath(client: Self.client(large)))
            #expect(refused.status == 400 && refused.text.contains("larger than 5120 bytes"), "\(refused.text)")
            #expect(try storedClient(harness, large) == nil)
        }
    }

    /// A document client that authenticates with `private_key_jwt`, its keys only at its
    /// `jwks_uri`: signs a person in and redeems the code with an assertion.
    @Test func aDocumentClientWithKeysAtItsJWKSURIRedeemsItsCodeWithAnAssertion() async throws {
        let server = try HTTPSDocumentServer()
        let url = server.url("/signed-agent.json")
        let key = try SigningKey.generate(.es256)
        try server.serve("/signed-agent-jwks.json", body: JWKSet(keys: [key.publicJWK]).jsonString)
        try server.serve(
            "/signed-agent.json",
            body: """
                {"client_id": "\(url)", "client_name": "Signed Agent", "redirect_uris": ["\(Self.redirectURI)"],
                 "token_endpoint_auth_method": "private_key_jwt", "jwks_uri": "\(server.url("/signed-agent-jwks.json"))"}
                """)
        try await withProvider(server) { harness in
            _ = try harness.addUser()
            let pkce = PKCEPair()
            let allowed = try await harness.browser().authorizeWithConsent(client: Self.client(url), pkce: pkce)
            let code = try #require(allowed.redirectParameters["code"], "\(allowed.status) \(allowed.text)")
            #expect(try storedClient(harness, url)?.jwksURI == server.url("/signed-agent-jwks.json"))
            func redeem(signedBy signer: SigningKey) async throws -> TestReply {
                let now = Date()
                let assertion = JWS.sign(
                    claims: JWTClaims(
                        issuer: url, subject: url, audience: [harness.issuer + "/oauth/token"],
                        expiresAt: now.addingTimeInterval(60), issuedAt: now, jwtID: UUID().uuidString),
                    key: signer)
                return try await harness.token(
                    [
                        ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", Self.redirectURI),
                        ("code_verifier", pkce.verifier),
                        ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
                        ("client_assertion", assertion),
                    ], client: .none)
            }
            let forged = try await redeem(signedBy: try SigningKey.generate(.es256))
            #expect(forged.status == 401 && forged.string("error") == "invalid_client", "\(forged.text)")
            let token = try await redeem(signedBy: key)
            #expect(token.status == 200, "\(token.text)")
            #expect(token.string("access_token") != nil)
        }
    }

    /// Many first uses at once: every one goes on to sign-in; one row.
    @Test func firstUsesAtOnceAllSucceed() async throws {
        let server = try HTTPSDocumentServer()
        let url = server.url("/busy.json")
        try server.serve("/busy.json", body: Self.document(url), headers: ["Cache-Control": "no-store"])
        try await withProvider(server) { harness in
            let replies = try await withThrowingTaskGroup(of: TestReply.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        try await harness.browser().get(TestBrowser.authorizePath(client: Self.client(url)))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for reply in replies {
                #expect(reply.location?.hasPrefix("/login") == true, "\(reply.status) \(reply.text)")
            }
            #expect(try harness.store.transaction { try $0.clients() }.filter { $0.id == url }.count == 1)
        }
    }

    /// What a document's `Cache-Control` keeps it for: its `max-age` between the floor (30 s)
    /// and the ceiling (a day), 5 minutes without one, nothing with `no-store` or `no-cache`.
    @Test(
        arguments: [
            (nil, 300), ("max-age=600", 600), ("public, max-age=\"120\"", 120), ("max-age=0", 30),
            ("max-age=99999999", 86_400), ("no-store", 0), ("max-age=600, no-cache", 0), ("private", 300),
        ] as [(String?, Int)])
    func aDocumentIsKeptForItsBoundedMaxAge(cacheControl: String?, seconds: Int) {
        #expect(DocumentCacheLifetime(cacheControl: cacheControl).duration == .seconds(seconds))
    }
}
