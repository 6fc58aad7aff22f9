import Foundation
import PorticoCrypto
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

/// `portico client add … --profile fapi2` (FAPI 2.0 Security Profile) end to end: what the
/// command refuses, and a client that may sign people in only through a pushed request naming
/// its redirect URI, authenticated with `private_key_jwt`, gets a code of at most 60 seconds
/// and DPoP-bound tokens only.
@Suite struct FAPIProfileTests {
    @Test func theCommandRefusesWhatTheProfileForbids() async throws {
        try await ProviderHarness.with { harness in
            let key = try SigningKey.generate(.es256)
            let file = harness.directory.appendingPathComponent("jwks.json")
            try Data(JWKSet(keys: [key.publicJWK]).jsonString.utf8).write(to: file)
            let base = ["client", "add", "--name", "Bank", "--redirect-uri", "https://bank.example/cb"]
            let cases: [([String], String)] = [
                (base + ["--profile", "fapi2"], "--jwks"),
                (base + ["--profile", "fapi2", "--public"], "public"),
                (base + ["--profile", "fapi9", "--jwks", file.path], "fapi2"),
            ]
            for (arguments, words) in cases {
                let added = try harness.portico(arguments)
                #expect(added.status != 0, "\(arguments)")
                #expect(added.stderr.contains(words), "\(arguments): \(added.stderr)")
            }
            #expect(try harness.store.transaction { try $0.clients().count } == 0)
        }
    }

    @Test func aFAPIClientSignsInOnlyThroughPARWithPrivateKeyJWTAndDPoP() async throws {
        let configuration = ProviderConfiguration.testing { $0.lifetimes.authorizationCode = 600 }
        try await ProviderHarness.with(configuration: configuration) { harness in
            _ = try harness.addUser()
            let client = try RequestObjectTests.register(harness, extra: ["--profile", "fapi2"])
            let stored = try #require(try harness.store.client(id: client.id))
            #expect(stored.securityProfile == .fapi2)
            #expect(stored.requiresPAR && stored.requiresDPoP)
            let listed = try harness.portico(["client", "list", "--json"])
            #expect(listed.stdout.contains(#""profile": "fapi2""#), "\(listed.stdout)")

            let pkce = PKCEPair()
            let browser = harness.browser()
            let unpushed = try await browser.get(
                TestBrowser.authorizePath(client: stored, pkce: pkce, overrides: ["nonce": nil]))
            #expect(unpushed.status == 400)
            #expect(unpushed.location == nil)

            var form = PushedAuthorizationTests.authorizationParameters(
                redirectURI: RequestObjectTests.redirectURI, pkce: pkce)
            let withoutRedirect = try await harness.post(
                "/oauth/par",
                form.filter { $0.0 != "redirect_uri" } + [("client_id", client.id)]
                    + RequestObjectTests.assertion(harness, client: client))
            #expect(withoutRedirect.status == 400)
            #expect(withoutRedirect.string("error") == "invalid_request", "\(withoutRedirect.text)")
            form.append(("client_id", client.id))
            let pushed = try await harness.post(
                "/oauth/par", form + RequestObjectTests.assertion(harness, client: client))
            let requestURI = try #require(pushed.string("request_uri"), "\(pushed.text)")
            let start = try await browser.get(
                PushedAuthorizationTests.authorizePath(clientID: client.id, requestURI: requestURI))
            let done = try await PushedAuthorizationTests.signInAndAllow(browser, from: start)
            #expect(done.redirectParameters["iss"] == harness.issuer)
            let code = try #require(done.redirectParameters["code"], "\(done.status) \(done.location ?? "")")
            let issued = try #require(try harness.store.authorizationCode(code))
            #expect(issued.expiresAt.timeIntervalSince(issued.createdAt) <= 60)

            // Bearer tokens are refused: a proof is needed, and with one the tokens are bound.
            let bare = try await RequestObjectTests.redeem(harness, client: client, done: done, pkce: pkce)
            #expect(bare.string("error") == "invalid_dpop_proof", "\(bare.text)")
            let key = try DPoPProver()
            let now = Date()
            let assertion = JWS.sign(
                claims: JWTClaims(
                    issuer: client.id, subject: client.id, audience: [harness.issuer + "/oauth/token"],
                    expiresAt: now.addingTimeInterval(60), issuedAt: now, jwtID: UUID().uuidString),
                key: client.key)
            let tokens = try await harness.token(
                [
                    ("grant_type", "authorization_code"), ("code", code),
                    ("redirect_uri", RequestObjectTests.redirectURI),
                    ("code_verifier", pkce.verifier),
                    ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
                    ("client_assertion", assertion),
                ], client: .none, proof: key.proof("POST", harness.issuer + "/oauth/token"))
            #expect(tokens.status == 200, "\(tokens.text)")
            #expect(tokens.string("token_type") == "DPoP")
        }
    }
}
