import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

/// `dpop_jkt` at `/oauth/authorize` (RFC 9449 §10) binds the code to a key, through the real
/// pages; and an access token bound to a key is exchanged (RFC 8693) only with a proof of it.
@Suite struct DPoPBoundCodeTests {
    /// The code of a request naming `dpop_jkt`, signed in and consented through the pages.
    private static func boundCode(
        _ harness: ProviderHarness, client: Client, pkce: PKCEPair, thumbprint: String
    ) async throws -> String {
        let browser = harness.browser()
        let start = try await browser.get(
            TestBrowser.authorizePath(client: client, pkce: pkce, extra: [("dpop_jkt", thumbprint)]))
        var location = try #require(start.location, "\(start.status) \(start.text)")
        if location.hasPrefix("/login") {
            let login = try await browser.signIn(at: location)
            location = try #require(login.location)
        }
        let done = try await browser.decide(at: location, "allow")
        return try #require(done.redirectParameters["code"], "\(done.status) \(done.location ?? "")")
    }

    @Test func aCodeBoundByDPoPJKTIsRedeemedOnlyWithThatKey() async throws {
        try await ProviderHarness.with { harness in
            _ = try harness.addUser()
            let client = try harness.addPublicClient()
            let key = try DPoPProver()
            let thief = try DPoPProver()
            let url = harness.issuer + "/oauth/token"
            let pkce = PKCEPair()
            let code = try await Self.boundCode(harness, client: client, pkce: pkce, thumbprint: try key.thumbprint)
            #expect(try harness.store.authorizationCode(code)?.dpopKeyThumbprint == (try key.thumbprint))
            let form = [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", client.redirectURIs[0]),
                ("code_verifier", pkce.verifier),
            ]
            let bare = try await harness.token(form, client: .id(client.id))
            #expect(bare.status == 400)
            #expect(bare.string("error") == "invalid_dpop_proof", "\(bare.text)")
            let other = try await harness.token(form, client: .id(client.id), proof: thief.proof("POST", url))
            #expect(other.string("error") == "invalid_dpop_proof", "\(other.text)")
            // Neither refusal used the code up.
            let redeemed = try await harness.token(form, client: .id(client.id), proof: key.proof("POST", url))
            #expect(redeemed.status == 200, "\(redeemed.text)")
            #expect(redeemed.string("token_type") == "DPoP")
        }
    }

    @Test func aMalformedDPoPJKTIsRefusedAtAuthorize() async throws {
        try await ProviderHarness.with { harness in
            let client = try harness.addPublicClient()
            let reply = try await harness.browser().get(
                TestBrowser.authorizePath(client: client, extra: [("dpop_jkt", "not-a-thumbprint")]))
            #expect(reply.redirectParameters["error"] == "invalid_request", "\(reply.status) \(reply.text)")
            #expect(reply.redirectParameters["code"] == nil)
        }
    }

    /// A bound access token exchanged for a narrower one (RFC 8693) needs a proof of its key,
    /// so that a copy of it cannot become a bearer token; with one, the new token is bound too.
    @Test func aBoundTokenIsExchangedOnlyWithAProofOfItsKey() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            let client = try harness.addConfidentialClient(
                grants: ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:token-exchange"])
            let key = try DPoPProver()
            let url = harness.issuer + "/oauth/token"
            let code = try harness.issueCode(for: client, user: user, scopes: ["openid", "profile"])
            let issued = try await harness.token(
                [
                    ("grant_type", "authorization_code"), ("code", code.code), ("redirect_uri", code.redirectURI),
                    ("code_verifier", code.verifier),
                ], client: .of(client), proof: key.proof("POST", url))
            let access = try #require(issued.string("access_token"), "\(issued.text)")
            let form = [
                ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"), ("subject_token", access),
                ("subject_token_type", "urn:ietf:params:oauth:token-type:access_token"), ("scope", "openid"),
            ]
            let bare = try await harness.token(form, client: .of(client))
            #expect(bare.string("error") == "invalid_dpop_proof", "\(bare.text)")
            let bound = try await harness.token(form, client: .of(client), proof: key.proof("POST", url))
            #expect(bound.status == 200, "\(bound.text)")
            #expect(bound.string("token_type") == "DPoP")
        }
    }
}
