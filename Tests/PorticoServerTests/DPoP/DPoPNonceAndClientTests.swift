import Foundation
import PorticoCrypto
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

/// Server nonces (`serve --dpop-nonce`, RFC 9449 §8, §9) and clients registered with `--dpop`,
/// against the real server.
@Suite struct DPoPNonceAndClientTests {
    private static func codeForm(_ code: ProviderHarness.IssuedCode) -> [(String, String)] {
        [
            ("grant_type", "authorization_code"), ("code", code.code), ("redirect_uri", code.redirectURI),
            ("code_verifier", code.verifier),
        ]
    }

    /// A client registered with `--dpop` gets nothing without a proof (and the refused request
    /// leaves its code usable), and its tokens are refused as Bearer tokens.
    @Test func aDPoPClientNeedsAProofAndItsTokensAreNoBearerTokens() async throws {
        try await ProviderHarness.with { harness in
            let user = try harness.addUser()
            var client = try harness.addPublicClient()
            client.requiresDPoP = true
            try harness.store.transaction { try $0.update(client) }
            let key = try DPoPProver()
            let code = try harness.issueCode(for: client, user: user, scopes: ["openid", "profile"])
            let bare = try await harness.token(Self.codeForm(code), client: .id(client.id))
            #expect(bare.status == 400)
            #expect(bare.string("error") == "invalid_dpop_proof", "\(bare.text)")
            let bound = try await harness.token(
                Self.codeForm(code), client: .id(client.id), proof: key.proof("POST", harness.issuer + "/oauth/token"))
            #expect(bound.status == 200, "\(bound.text)")
            #expect(bound.string("token_type") == "DPoP")
            #expect(bound.header("DPoP-Nonce") == nil)
            let access = try #require(bound.string("access_token"))
            let asBearer = try await harness.resource("/user/profile", token: access)
            #expect(asBearer.status == 401)
            #expect(asBearer.header("WWW-Authenticate")?.contains(#"error="invalid_token""#) == true)
            #expect(asBearer.header("WWW-Authenticate")?.hasPrefix("DPoP ") == true)

            // Other clients may still use DPoP or not.
            let other = try harness.addPublicClient(name: "Other App")
            let plain = try await harness.redeem(
                try harness.issueCode(for: other, user: user, scopes: ["openid"]), client: .id(other.id))
            #expect(plain.string("token_type") == "Bearer", "\(plain.text)")
        }
    }

    /// With `--dpop-nonce`: a proof without the server's nonce is answered `use_dpop_nonce` and
    /// the nonce, at the token endpoint (400) and at a resource (401); with it, the request
    /// passes and the answer carries a current nonce.
    @Test func aRequiredNonceIsAskedForThenAccepted() async throws {
        try await ProviderHarness.with(configuration: .testing { $0.requiresDPoPNonce = true }) { harness in
            let user = try harness.addUser()
            let client = try harness.addPublicClient()
            let key = try DPoPProver()
            let url = harness.issuer + "/oauth/token"
            let code = try harness.issueCode(for: client, user: user, scopes: ["openid"])
            let asked = try await harness.token(
                Self.codeForm(code), client: .id(client.id), proof: key.proof("POST", url))
            #expect(asked.status == 400)
            #expect(asked.string("error") == "use_dpop_nonce", "\(asked.text)")
            let nonce = try #require(asked.header("DPoP-Nonce"))
            let made = try await harness.token(
                Self.codeForm(code), client: .id(client.id), proof: key.proof("POST", url, nonce: "made-up"))
            #expect(made.string("error") == "use_dpop_nonce", "\(made.text)")
            let reply = try await harness.token(
                Self.codeForm(code), client: .id(client.id), proof: key.proof("POST", url, nonce: nonce))
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.header("DPoP-Nonce") != nil)
            let access = try #require(reply.string("access_token"))

            let userinfo = harness.issuer + "/oauth/userinfo"
            let refused = try await harness.resource(
                "/oauth/userinfo", token: access, proof: key.proof("GET", userinfo, accessToken: access))
            #expect(refused.status == 401)
            #expect(refused.header("WWW-Authenticate")?.contains(#"error="use_dpop_nonce""#) == true)
            let fresh = try #require(refused.header("DPoP-Nonce"))
            let admitted = try await harness.resource(
                "/oauth/userinfo", token: access, proof: key.proof("GET", userinfo, accessToken: access, nonce: fresh))
            #expect(admitted.status == 200, "\(admitted.text)")
            #expect(admitted.header("DPoP-Nonce") != nil)
        }
    }

    /// Without `--dpop-nonce` no nonce is asked for, and none is handed out.
    @Test func noNonceIsAskedForByDefault() async throws {
        try await ProviderHarness.with { harness in
            try harness.store.insert(ProductScope(name: "orders:read", description: "See your orders"))
            let client = try harness.addConfidentialClient(scopes: ["orders:read"], grants: ["client_credentials"])
            let reply = try await harness.token(
                [("grant_type", "client_credentials")], client: .of(client),
                proof: try DPoPProver().proof("POST", harness.issuer + "/oauth/token"))
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.header("DPoP-Nonce") == nil)
        }
    }
}
