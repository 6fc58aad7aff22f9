import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// A refresh with a DPoP proof on PostgreSQL: the proof's first use and the one-step rotation
/// in one transaction (an insert and the update), so a replayed proof rolls the rotation back.
@Suite(TestServer.required) struct DPoPRefreshPostgresTests {
    @Test func aRefreshWithAProofIsBoundAndAReplayRotatesNothing() async throws {
        let database = try TemporaryDatabase()
        try await ProviderHarness.with(database: .postgres(url: database.url)) { harness in
            let user = try harness.addUser()
            let client = try harness.addConfidentialClient(introspection: true)
            let credentials = ClientCredentials.of(client)
            let key = try DPoPProver()
            let url = harness.issuer + "/oauth/token"
            let signedIn = try await harness.signIn(user, to: client, scopes: ["openid", "offline_access"])
            let refresh = try #require(signedIn.string("refresh_token"), "\(signedIn.text)")

            let proof = key.proof("POST", url)
            let refreshed = try await harness.token(
                [("grant_type", "refresh_token"), ("refresh_token", refresh)], client: credentials, proof: proof)
            #expect(refreshed.status == 200, "\(refreshed.text)")
            #expect(refreshed.string("token_type") == "DPoP")
            let access = try #require(refreshed.string("access_token"))
            let introspected = try await harness.introspect(access, client: credentials).json
            #expect(introspected["cnf"] == ["jkt": .string(try key.thumbprint)])
            let next = try #require(refreshed.string("refresh_token"))

            let form = [("grant_type", "refresh_token"), ("refresh_token", next)]
            let replay = try await harness.token(form, client: credentials, proof: proof)
            #expect(replay.string("error") == "invalid_dpop_proof", "\(replay.text)")
            let again = try await harness.token(form, client: credentials, proof: key.proof("POST", url))
            #expect(again.status == 200, "\(again.text)")
        }
    }
}
