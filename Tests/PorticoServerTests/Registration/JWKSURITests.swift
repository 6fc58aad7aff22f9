import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Synchronization
import Testing

@testable import PorticoServer

/// `jwks_uri` client metadata (RFC 7591 §2): a client registered through `POST /oauth/register`
/// whose public keys live only at an https URL (a real https server on loopback) signs its
/// `private_key_jwt` assertions with them; a rotation at the client is fetched; `jwks` and
/// `jwks_uri` together are refused.
@Suite struct JWKSURITests {
    func withProvider(_ server: HTTPSDocumentServer, _ body: (ProviderHarness) async throws -> Void) async throws {
        let configuration = ProviderConfiguration.testing {
            $0.allowsLoopbackClientMetadata = true
            $0.outboundTrustedCertificatesFile = server.certificate
            $0.documentFetchTimeout = .seconds(2)
        }
        try await ProviderHarness.with(configuration: configuration) { try await body($0) }
    }

    static func publish(_ keys: [SigningKey], on server: HTTPSDocumentServer) throws {
        try server.serve(
            "/jwks.json", body: JWKSet(keys: keys.map(\.publicJWK)).jsonString,
            headers: ["Cache-Control": "max-age=600"])
    }

    static func assertion(_ clientID: String, key: SigningKey, harness: ProviderHarness) -> [(String, String)] {
        let now = Date()
        let jws = JWS.sign(
            claims: JWTClaims(
                issuer: clientID, subject: clientID, audience: [harness.issuer + "/oauth/token"],
                expiresAt: now.addingTimeInterval(60), issuedAt: now, jwtID: UUID().uuidString),
            key: key)
        return [
            ("grant_type", "client_credentials"),
            ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
            ("client_assertion", jws),
        ]
    }

    static func metadata(_ keys: String) -> String {
        """
        {"client_name": "Backend", "grant_types": ["client_credentials"], "response_types": [],
         "token_endpoint_auth_method": "private_key_jwt", \(keys)}
        """
    }

    @Test func keysAtTheURLAuthenticateAndARotationIsFetchedOnceForAnUnknownKid() async throws {
        let server = try HTTPSDocumentServer()
        let first = try SigningKey.generate(.es256)
        try Self.publish([first], on: server)
        try await withProvider(server) { harness in
            let token = try RegistrationTokenIssue().create(in: harness.store)
            let reply = try await register(
                harness, Self.metadata(#""jwks_uri": "\#(server.url("/jwks.json"))""#), token: token)
            #expect(reply.status == 201, "\(reply.text)")
            #expect(reply.string("jwks_uri") == server.url("/jwks.json"))
            #expect(reply.string("client_secret") == nil)
            let id = try #require(reply.string("client_id"))
            #expect(try harness.store.transaction { try $0.client(id: id) }?.jwksURI == server.url("/jwks.json"))

            for _ in 0..<2 {
                let granted = try await harness.post("/oauth/token", Self.assertion(id, key: first, harness: harness))
                #expect(granted.status == 200, "\(granted.text)")
            }
            #expect(server.requests(to: "/jwks.json") == 1, "kept for its max-age")

            // The client rotates: its new key's kid is unknown to the kept set, so it is fetched.
            let second = try SigningKey.generate(.es256)
            try Self.publish([second], on: server)
            let rotated = try await harness.post("/oauth/token", Self.assertion(id, key: second, harness: harness))
            #expect(rotated.status == 200, "\(rotated.text)")
            #expect(server.requests(to: "/jwks.json") == 2)

            // Another unknown kid right after: refused without fetching again.
            let stranger = try SigningKey.generate(.es256)
            let refused = try await harness.post("/oauth/token", Self.assertion(id, key: stranger, harness: harness))
            #expect(refused.status == 401 && refused.string("error") == "invalid_client", "\(refused.text)")
            #expect(server.requests(to: "/jwks.json") == 2)
        }
    }

    /// `portico client add --jwks-uri` makes the same client as `jwks_uri` at registration: no
    /// secret, and its assertions verify with the keys at the URL; the URL's rules are the
    /// registration's (https only), in one line.
    @Test func theCommandLineRegistersAClientWithKeysAtAURL() async throws {
        let server = try HTTPSDocumentServer()
        let key = try SigningKey.generate(.es256)
        try Self.publish([key], on: server)
        try await withProvider(server) { harness in
            let url = server.url("/jwks.json")
            let plain = try harness.portico([
                "client", "add", "--name", "Backend", "--grant", "client_credentials", "--allow-loopback-callbacks",
                "--jwks-uri", "http://127.0.0.1:\(server.port)/jwks.json",
            ])
            #expect(plain.status != 0 && plain.stderr.contains("https"), "\(plain.stderr)")
            #expect(plain.stderr.split(separator: "\n").count == 1, "\(plain.stderr)")
            let made = try harness.portico([
                "client", "add", "--name", "Backend", "--grant", "client_credentials", "--allow-loopback-callbacks",
                "--jwks-uri", url, "--json",
            ])
            #expect(made.status == 0, "\(made.stderr)")
            let object = try #require(cliJSON(made.stdout)?.objectValue)
            #expect(object["client_secret"] == nil)
            let id = try #require(object["client_id"]?.stringValue)
            #expect(try harness.store.transaction { try $0.client(id: id) }?.jwksURI == url)
            let granted = try await harness.post("/oauth/token", Self.assertion(id, key: key, harness: harness))
            #expect(granted.status == 200, "\(granted.text)")
            #expect(server.requests(to: "/jwks.json") == 1)
        }
    }

    /// On SQLite the token endpoint runs on the epoll threads; a request that must fetch keys
    /// from an app's server goes to the worker pool, so a server that never answers holds no
    /// epoll thread: with more such requests waiting than there are epoll threads, another
    /// token request is still answered before any of them.
    @Test func aKeyServerThatNeverAnswersHoldsNoEpollThread() async throws {
        let server = try HTTPSDocumentServer()
        let key = try SigningKey.generate(.es256)
        let configuration = ProviderConfiguration.testing {
            $0.allowsLoopbackClientMetadata = true
            $0.outboundTrustedCertificatesFile = server.certificate
            $0.documentFetchTimeout = .seconds(8)
            $0.threads = 2
        }
        try await ProviderHarness.with(configuration: configuration) { harness in
            let token = try RegistrationTokenIssue().create(in: harness.store)
            let reply = try await register(
                harness, Self.metadata(#""jwks_uri": "\#(server.url("/jwks.json"))""#), token: token)
            let id = try #require(reply.string("client_id"))
            try server.stall("/jwks.json")
            let waitingDone = AnsweredCount()
            let waiting = (0..<4).map { _ in
                Task {
                    _ = try? await harness.post("/oauth/token", Self.assertion(id, key: key, harness: harness))
                    waitingDone.count.withLock { $0 += 1 }
                }
            }
            // Every waiting request has reached the key server before the other one is sent.
            while server.requests(to: "/jwks.json") < 4 { try await Task.sleep(for: .milliseconds(50)) }
            let other = try await harness.post("/oauth/token", [("grant_type", "client_credentials")])
            #expect(other.status == 401)
            #expect(waitingDone.count.withLock { $0 } == 0, "the other request waited for the key server")
            for task in waiting { task.cancel() }
        }
    }

    @Test func jwksAndJWKSURITogetherOrAnHTTPURLAreRefused() async throws {
        let server = try HTTPSDocumentServer()
        let key = try SigningKey.generate(.es256)
        let jwks = JWKSet(keys: [key.publicJWK]).jsonString
        try await withProvider(server) { harness in
            let token = try RegistrationTokenIssue().create(in: harness.store)
            let before = try harness.store.transaction { try $0.clients() }.count
            let both = try await register(
                harness, Self.metadata(#""jwks": \#(jwks), "jwks_uri": "\#(server.url("/jwks.json"))""#), token: token)
            #expect(both.status == 400 && both.string("error") == "invalid_client_metadata", "\(both.text)")
            #expect(both.string("error_description")?.contains("jwks and jwks_uri") == true)
            let plain = try await register(
                harness, Self.metadata(#""jwks_uri": "http://127.0.0.1:\#(server.port)/jwks.json""#), token: token)
            #expect(plain.status == 400 && plain.string("error") == "invalid_client_metadata", "\(plain.text)")
            #expect(try harness.store.transaction { try $0.clients() }.count == before)
        }
    }

    /// A signed request object (RFC 9101) verifies with keys at the `jwks_uri`; one signed by
    /// another key goes back as `invalid_request_object`. RFC 7592's PUT keeps the rule: both
    /// `jwks` and `jwks_uri` are refused, and moving to inline keys clears the URI.
    @Test func requestObjectsVerifyWithKeysAtTheURLAndAnUpdateKeepsTheRule() async throws {
        let server = try HTTPSDocumentServer()
        let key = try SigningKey.generate(.es256)
        try Self.publish([key], on: server)
        let redirectURI = RequestObjectTests.redirectURI
        try await withProvider(server) { harness in
            _ = try harness.addUser()
            let token = try RegistrationTokenIssue().create(in: harness.store)
            let metadata = """
                {"client_name": "Signed App", "redirect_uris": ["\(redirectURI)"],
                 "token_endpoint_auth_method": "private_key_jwt", "jwks_uri": "\(server.url("/jwks.json"))"}
                """
            let reply = try await register(harness, metadata, token: token)
            #expect(reply.status == 201, "\(reply.text)")
            let id = try #require(reply.string("client_id"))
            let client = RequestObjectTests.SignedClient(id: id, key: key)
            let claims = RequestObjectTests.claims(harness, client: client, pkce: PKCEPair())
            func authorize(signedBy signer: SigningKey) async throws -> TestReply {
                var components = URLComponents()
                components.path = "/oauth/authorize"
                components.queryItems = [
                    URLQueryItem(name: "client_id", value: id),
                    URLQueryItem(name: "request", value: RequestObjectTests.sign(claims, key: signer)),
                ]
                return try await harness.browser().get(try #require(components.string))
            }
            let signed = try await authorize(signedBy: key)
            #expect(signed.location?.hasPrefix("/login") == true, "\(signed.status) \(signed.text)")
            let forged = try await authorize(signedBy: try SigningKey.generate(.es256))
            #expect(forged.redirectParameters["error"] == "invalid_request_object", "\(forged.location ?? "")")

            // RFC 7592 §2.2: the whole metadata again, with the registration access token.
            let uri = try #require(reply.string("registration_client_uri"))
            let access = try #require(reply.string("registration_access_token"))
            let path = String(uri.dropFirst(harness.issuer.count))
            let jwks = JWKSet(keys: [key.publicJWK]).jsonString
            func put(_ keys: String, bearer: String) async throws -> TestReply {
                try await harness.request(
                    "PUT", path, headers: ["Content-Type": "application/json", "Authorization": "Bearer \(bearer)"],
                    rawBody: """
                        {"client_id": "\(id)", "client_name": "Signed App", "redirect_uris": ["\(redirectURI)"],
                         "token_endpoint_auth_method": "private_key_jwt", \(keys)}
                        """)
            }
            let both = try await put(#""jwks": \#(jwks), "jwks_uri": "\#(server.url("/jwks.json"))""#, bearer: access)
            #expect(both.status == 400 && both.string("error") == "invalid_client_metadata", "\(both.text)")
            #expect(try harness.store.transaction { try $0.client(id: id) }?.jwksURI == server.url("/jwks.json"))
            let inline = try await put(#""jwks": \#(jwks)"#, bearer: access)
            #expect(inline.status == 200, "\(inline.text)")
            let stored = try #require(try harness.store.transaction { try $0.client(id: id) })
            #expect(stored.jwksURI == nil && stored.jwks != nil)
        }
    }
}

/// How many of some requests have been answered, shared with the tasks that send them.
private final class AnsweredCount: Sendable {
    let count = Mutex(0)
}
