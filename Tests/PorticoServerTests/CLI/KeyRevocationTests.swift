import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// `portico keys revoke KID`: the key leaves the JWKS at once (no retention), what it signed
/// stops verifying in the running server, and its algorithm gets a new signer.
@Suite struct KeyRevocationTests {
    private func eventually(_ condition: () async throws -> Bool) async throws -> Bool {
        for _ in 0..<200 {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    @Test func aRevokedKeyIsGoneAtOnceAndItsTokensStopVerifying() async throws {
        try await ProviderHarness.with(configuration: .testing { $0.keyRefreshInterval = .milliseconds(100) }) {
            harness in
            let user = try harness.addUser()
            let client = try harness.addConfidentialClient()
            let signedIn = try await harness.signIn(user, to: client, scopes: ["openid", "profile"])
            let accessToken = try #require(signedIn.string("access_token"))
            #expect(try await harness.resource("/oauth/userinfo", token: accessToken).status == 200)
            let es256 = try #require(try harness.store.currentSigningKey(algorithm: "ES256"))

            let revoked = try PorticoProcess.run(
                ["keys", "revoke", es256.id, "--json", "--database", harness.databaseURL])
            #expect(revoked.status == 0, "\(revoked.stderr)")
            let answer = try #require(cliJSON(revoked.stdout)?.objectValue)
            #expect(answer["kid"]?.stringValue == es256.id)
            let replacement = try #require(answer["replacement_kid"]?.stringValue)
            #expect(try harness.store.signingKey(id: es256.id) == nil)
            #expect(try harness.store.currentSigningKey(algorithm: "ES256")?.id == replacement)

            let refused = try await eventually {
                try await harness.resource("/oauth/userinfo", token: accessToken).status == 401
            }
            #expect(refused)
            let jwks = try await harness.request("GET", "/oauth/jwks")
            let published = Set(
                (jwks.json["keys"]?.arrayValue ?? []).compactMap { $0.objectValue?["kid"]?.stringValue })
            #expect(!published.contains(es256.id))
            #expect(published.contains(replacement))
            // New tokens are signed by the replacement and work.
            let again = try await harness.signIn(user, to: client, scopes: ["openid"])
            #expect(
                try await harness.resource("/oauth/userinfo", token: try #require(again.string("access_token"))).status
                    == 200)
        }
    }

    @Test func anUnknownKidIsAOneLineFailure() throws {
        let database = try CLIDatabase()
        #expect(try database.portico(["migrate"]).status == 0)
        let result = try database.portico(["keys", "revoke", "no-such-kid"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("no signing key 'no-such-kid'"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        let missing = try database.portico(["keys", "revoke"])
        #expect(missing.status == 2)
    }
}
