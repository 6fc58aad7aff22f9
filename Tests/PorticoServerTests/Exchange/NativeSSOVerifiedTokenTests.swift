import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@testable import PorticoServer

/// The Native SSO exchange remembers ID tokens it verified (``VerifiedIDTokens``): only their
/// exact text, and only while the keys that verified them are the provider's keys.
@Suite("Native SSO: verified ID tokens") struct NativeSSOVerifiedTokenTests {
    private func eventually(_ condition: () async throws -> Bool) async throws -> Bool {
        for _ in 0..<200 {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    @Test("an ID token exchanged before is refused once its key is revoked; a changed byte is verified again")
    func rememberedTokensFollowTheKeys() async throws {
        try await ProviderHarness.with(configuration: .testing { $0.keyRefreshInterval = .milliseconds(100) }) {
            harness in
            let user = try harness.addUser()
            let first = try harness.addExchangeClient(name: "Mail")
            let second = try harness.addExchangeClient(name: "Calendar")
            let signIn = try await harness.ssoSignIn(user, to: first)
            // Twice: the second exchange finds the token remembered.
            let remembered = harness.provider.context.verifiedIDTokens
            #expect(try await harness.nativeSSO(signIn, as: second).status == 200)
            let hits = remembered.hits
            #expect(try await harness.nativeSSO(signIn, as: second).status == 200)
            #expect(remembered.hits == hits + 1, "the second exchange verified the ID token again")

            // The same token with one bit of its signature changed is another text: refused.
            var parts = signIn.idToken.split(separator: ".").map(String.init)
            var signature = try #require(Base64URL.decode(Substring(parts[2])))
            signature[7] ^= 0x01
            parts[2] = Base64URL.encode(signature)
            let tampered = try await harness.exchange(
                as: second, subjectToken: parts.joined(separator: "."), subjectTokenType: ExchangeURI.idToken,
                actorToken: signIn.deviceSecret, actorTokenType: ExchangeURI.deviceSecret, audience: harness.issuer)
            #expect(tampered.error == "invalid_grant", "\(tampered.text)")

            // Revoking the key that signed it: the remembered verification no longer counts.
            let headerBytes = try #require(Base64URL.decode(Substring(parts[0])))
            let header = try #require(JSONValue(parsing: headerBytes)?.objectValue)
            let keyID = try #require(header["kid"]?.stringValue)
            let revoked = try PorticoProcess.run(["keys", "revoke", keyID, "--database", harness.databaseURL])
            #expect(revoked.status == 0, "\(revoked.stderr)")
            let refused = try await eventually {
                try await harness.nativeSSO(signIn, as: second).error == "invalid_grant"
            }
            #expect(refused)
        }
    }
}
