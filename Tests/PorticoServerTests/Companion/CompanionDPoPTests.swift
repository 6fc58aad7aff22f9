import Foundation
import PorticoCrypto
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

/// The companion endpoints take a companion token bound to the agent's key (DPoP) as userinfo
/// does: with the `DPoP` scheme and a fresh proof of that key, never as a bearer token.
@Suite struct CompanionDPoPTests {
    @Test func aBoundCompanionTokenWorksOnlyWithAFreshProofOfItsKey() async throws {
        try await ProviderHarness.with { harness in
            _ = try harness.addUser()
            let app = try harness.addClient(name: "Test Shop")
            let agent = try await TestCompanion.signIn(harness, client: try TestCompanion.register(in: harness))
            let key = try DPoPProver()
            let refreshed = try await harness.token(
                [("grant_type", "refresh_token"), ("refresh_token", agent.refreshToken)], client: .id(agent.client.id),
                proof: key.proof("POST", harness.issuer + "/oauth/token"))
            #expect(refreshed.string("token_type") == "DPoP", "\(refreshed.text)")
            let token = try #require(refreshed.string("access_token"))
            let form = TestCompanion.request(for: app, pkce: PKCEPair())
            let url = harness.issuer + "/oauth/companion/authorize"

            let asBearer = try await agent.authorize(form, bearer: token)
            #expect(asBearer.status == 401)
            #expect(asBearer.header("WWW-Authenticate")?.hasPrefix("DPoP") == true)

            let proof = key.proof("POST", url, accessToken: token)
            func send(_ proof: String) async throws -> TestReply {
                try await harness.request(
                    "POST", "/oauth/companion/authorize", form: form,
                    headers: ["Authorization": "DPoP \(token)", "DPoP": proof])
            }
            let answered = try await send(proof)
            #expect(answered.status == 200, "\(answered.text)")
            #expect(answered.string("ticket") != nil || answered.string("code") != nil, "\(answered.text)")

            let replayed = try await send(proof)
            #expect(replayed.status == 401)
            #expect(replayed.header("WWW-Authenticate")?.contains(#"error="invalid_dpop_proof""#) == true)
            let otherKey = try await send(try DPoPProver().proof("POST", url, accessToken: token))
            #expect(otherKey.status == 401)
            let otherEndpoint = try await send(
                key.proof("POST", harness.issuer + "/oauth/companion/consent", accessToken: token))
            #expect(otherEndpoint.status == 401)
        }
    }
}
