import Foundation
import PorticoServer
import PorticoStore
import Testing

@testable import PorticoKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The crypto seam as the tests can run it (OpenSSL on Linux), and the plain-Swift parts the
/// Apple implementation relies on, checked against OpenSSL's own tools.
@Suite(.serialized)
struct PlatformCryptoTests {
    @Test func sha256AndRandomBytes() {
        let digest = PlatformCrypto.sha256(Array("abc".utf8))
        #expect(
            digest.map { String(format: "%02x", $0) }.joined()
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(PlatformCrypto.randomBytes(32).count == 32)
        #expect(PlatformCrypto.randomBytes(32) != PlatformCrypto.randomBytes(32))
        #expect(
            PendingAuthorization.challenge(for: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
                == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test func base64URLIsStrict() {
        #expect(Base64URLCoding.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URLCoding.decode("-_8") == [0xFB, 0xFF])
        #expect(Base64URLCoding.decode("-_8=") == nil)
        #expect(Base64URLCoding.decode("+/8") == nil)
        #expect(Base64URLCoding.decode("a") == nil)
    }

    @Test(arguments: ["RS256", "ES256", "EdDSA", "PS256"])
    func idTokensOfEveryAlgorithmVerifyAndATamperedOneDoesNot(algorithm: String) async throws {
        try await KitHarness.with { harness in
            let person = try harness.addUser()
            let client = Client(
                name: "Kit \(algorithm) App", type: .public, redirectURIs: ["http://127.0.0.1/callback"],
                allowedScopes: ["openid"], allowedGrantTypes: ["authorization_code", "refresh_token"],
                idTokenSigningAlgorithm: algorithm)
            try harness.store.insert(client)
            let manager = try await harness.signIn(person, client: client, scopes: [.openID])
            let grant = try #require(try manager.store.grant(for: manager.storeKey))
            #expect(grant.idTokenClaims?["sub"]?.stringValue == person.id)
            let idToken = try #require(grant.idToken)
            let headerBytes = try #require(Base64URLCoding.decode(idToken.split(separator: ".")[0]))
            let header = try #require(ProfileValue(parsing: headerBytes)?.objectValue)
            #expect(header["alg"]?.stringValue == algorithm)

            // One flipped bit in the signature and the token is refused.
            var parts = idToken.split(separator: ".").map(String.init)
            var signature = try #require(Base64URLCoding.decode(parts[2]))
            signature[signature.count / 2] ^= 0x01
            parts[2] = Base64URLCoding.encode(signature)
            let tampered = parts.joined(separator: ".")
            let verifier = IDTokenVerifier(
                provider: manager.provider, clientID: client.id, http: .shared, leeway: 60, now: { Date() })
            _ = try await verifier.verify(idToken, .init())
            let error = await #expect(throws: AuthorizationError.self) { try await verifier.verify(tampered, .init()) }
            #expect(error?.message == "the ID token failed verification: the signature is wrong")
        }
    }

    /// A JWK's `alg` picks what an RSA key verifies: both RSA algorithms without one, only the
    /// one it names otherwise, so a key published for RS256 never checks a PS256 ID token.
    @Test func anRSAKeyVerifiesTheRSAAlgorithmItsAlgNames() throws {
        func algorithms(_ json: String) throws -> [JWSAlgorithm] {
            try JSONDecoder().decode(JSONWebKey.self, from: Data(json.utf8)).signatureAlgorithms
        }
        #expect(try algorithms(#"{"kty":"RSA","n":"AQAB","e":"AQAB"}"#) == [.rs256, .ps256])
        #expect(try algorithms(#"{"kty":"RSA","alg":"RS256","n":"AQAB","e":"AQAB"}"#) == [.rs256])
        #expect(try algorithms(#"{"kty":"RSA","alg":"PS256","n":"AQAB","e":"AQAB"}"#) == [.ps256])
        #expect(try algorithms(#"{"kty":"RSA","alg":"PS384","n":"AQAB","e":"AQAB"}"#).isEmpty)
        #expect(try algorithms(#"{"kty":"EC","crv":"P-256","alg":"PS256","x":"AA","y":"AA"}"#).isEmpty)
        #expect(try algorithms(#"{"kty":"RSA","use":"enc","n":"AQAB","e":"AQAB"}"#).isEmpty)
    }

    /// OpenSSL 3's command line (macOS ships LibreSSL, which lacks `-RSAPublicKey_in`).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") && isLinux))
    func theRSAKeyDERIsWhatOpenSSLReads() async throws {
        try await KitHarness.with { harness in
            let (data, _) = try await URLSession.shared.data(from: harness.issuer.appendingPathComponent("oauth/jwks"))
            let set = try JSONDecoder().decode(JSONWebKeySet.self, from: data)
            let rsa = try #require(set.keys.first { $0.keyType == "RSA" })
            let modulus = try #require(rsa.modulus.flatMap(Base64URLCoding.decode))
            let exponent = try #require(rsa.exponent.flatMap(Base64URLCoding.decode))
            #expect(RSAPublicKeyDER.bitLength(ofModulus: modulus) >= 2048)
            let file = harness.directory.appendingPathComponent("key.der")
            try Data(RSAPublicKeyDER.encode(modulus: modulus, exponent: exponent)).write(to: file)

            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            process.arguments = ["rsa", "-RSAPublicKey_in", "-inform", "DER", "-in", file.path, "-noout", "-modulus"]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            let hex = modulus.drop { $0 == 0 }.map { String(format: "%02X", $0) }.joined()
            #expect(output.trimmingCharacters(in: .whitespacesAndNewlines) == "Modulus=" + hex)
        }
    }
}
