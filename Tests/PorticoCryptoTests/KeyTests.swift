import Foundation
import PorticoCrypto
import Testing

@Suite struct KeyTests {
    /// RFC 7638 §3.1: this RSA key's thumbprint is NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs.
    @Test func thumbprintMatchesRFC7638Example() throws {
        let jwk = JWK(
            keyType: "RSA", keyID: "2011-04-29", algorithm: "RS256",
            modulus: "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPeb"
                + "WKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAt"
                + "aSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksIN"
                + "HaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
            exponent: "AQAB")
        #expect(try jwk.thumbprint() == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
        // Optional members (kid, alg) do not change it; the imported key re-exports the same.
        let key = try VerificationKey(jwk: JWK(keyType: "RSA", modulus: jwk.modulus, exponent: jwk.exponent))
        #expect(key.keyID == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
        #expect(key.algorithm == .rs256)
    }

    @Test(arguments: SignatureAlgorithm.allCases) func generatedKeyUsesThumbprintAsKeyID(
        _ algorithm: SignatureAlgorithm
    )
        throws
    {
        let key = try SigningKey.generate(algorithm)
        #expect(key.algorithm == algorithm)
        #expect(key.keyID == (try key.publicJWK.thumbprint()))
        #expect(key.publicJWK.keyType == algorithm.keyType)
        #expect(key.publicJWK.curve == algorithm.curve)
        #expect(key.publicJWK.algorithm == algorithm.rawValue)
        #expect(key.publicJWK.use == "sig")
        #expect(!key.publicJWK.isPrivate)
        #expect(key.keyID.utf8.count == 43)
    }

    @Test(arguments: SignatureAlgorithm.allCases) func pemWriteIs0600AndLoadRoundTrips(_ algorithm: SignatureAlgorithm)
        throws
    {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("signing.pem")
        let key = try SigningKey.generate(algorithm)
        try key.write(to: url)
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["signing.pem"])

        let loaded = try SigningKey(contentsOf: url, algorithm: algorithm)
        #expect(loaded.keyID == key.keyID)
        #expect(loaded.publicJWK == key.publicJWK)
        #expect(loaded.pemRepresentation == key.pemRepresentation)
        // A token signed by the loaded key verifies with the original's public key.
        let token = JWS.sign(payload: Array("{}".utf8), key: loaded)
        _ = try JWSVerifier(keys: [key.verificationKey]).verify(token, algorithms: [algorithm])

        // Rewriting replaces atomically and keeps 0600.
        try loaded.write(to: url)
        let again = try FileManager.default.attributesOfItem(atPath: url.path)
        #expect((again[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    @Test func pemWithAnotherKeyID() throws {
        let key = try SigningKey.generate(.edDSA)
        let renamed = try SigningKey(pem: key.pemRepresentation, keyID: "2026-01")
        #expect(renamed.keyID == "2026-01")
        #expect(renamed.publicJWK.keyID == "2026-01")
    }

    @Test func rsa1024IsRefused() throws {
        #expect(throws: KeyError.rsaKeyTooSmall(bits: 1024)) { try SigningKey(pem: rsa1024PEM) }
        #expect(throws: KeyError.rsaKeyTooSmall(bits: 1024)) { try SigningKey.generateRSA(bits: 1024) }
        // The same key as a JWK, built from a 128-byte modulus.
        let modulus = Base64URL.encode([UInt8](repeating: 0xC5, count: 128))
        #expect(throws: KeyError.rsaKeyTooSmall(bits: 1024)) {
            try VerificationKey(jwk: JWK(keyType: "RSA", modulus: modulus, exponent: "AQAB"))
        }
    }

    @Test func malformedPEMAndFilesAreErrors() throws {
        #expect(throws: KeyError.invalidPEM) { try SigningKey(pem: "") }
        #expect(throws: KeyError.invalidPEM) {
            try SigningKey(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        }
        let missing = URL(fileURLWithPath: "/nonexistent/portico/key.pem")
        #expect(throws: KeyError.fileSystem(path: missing.path, errno: ENOENT)) { try SigningKey(contentsOf: missing) }
        let key = try SigningKey.generate(.es256)
        #expect(throws: KeyError.self) { try key.write(to: missing) }
    }

    @Test func privateJWKMustBeConsistent() throws {
        let vectors = Dictionary(uniqueKeysWithValues: joseVectors.compactMap { v in v.algorithm.map { ($0, v) } })
        // EC: d from one key, x/y from another.
        var ec = try #require(vectors[.es256]).privateJWK
        ec.d = Base64URL.encode([UInt8](repeating: 0x11, count: 32))
        #expect(throws: KeyError.inconsistentKeyPair) { try SigningKey(jwk: ec) }
        // Ed25519: x that does not belong to d.
        var ed = try #require(vectors[.edDSA]).privateJWK
        let edX = try #require(ed.x)
        let edBytes = try #require(Base64URL.decode(edX))
        ed.x = Base64URL.encode(Array(edBytes.reversed()))
        #expect(throws: KeyError.self) { try SigningKey(jwk: ed) }
        // RSA: partial CRT members.
        var rsa = try #require(vectors[.rs256]).privateJWK
        rsa.qi = nil
        #expect(throws: KeyError.invalidJWK("partial p/q/dp/dq/qi")) { try SigningKey(jwk: rsa) }
        // RSA with n, e, d only still signs.
        var minimal = try #require(vectors[.rs256]).privateJWK
        (minimal.p, minimal.q, minimal.dp, minimal.dq, minimal.qi) = (nil, nil, nil, nil, nil)
        let key = try SigningKey(jwk: minimal)
        let token = JWS.sign(payload: Array("{}".utf8), key: key)
        let verifier = JWSVerifier(keys: [try VerificationKey(jwk: try #require(vectors[.rs256]).publicJWK)])
        _ = try verifier.verify(token, algorithms: [.rs256])
        // A public JWK is not a signing key.
        #expect(throws: KeyError.missingPrivateKey) { try SigningKey(jwk: try #require(vectors[.es256]).publicJWK) }
    }

    @Test func malformedJWKsAreErrors() throws {
        let x = Base64URL.encode([UInt8](repeating: 1, count: 32))
        #expect(throws: KeyError.unsupportedKeyType("oct")) { try VerificationKey(jwk: JWK(keyType: "oct")) }
        #expect(throws: KeyError.unsupportedKeyType("EC P-384")) {
            try VerificationKey(jwk: JWK(keyType: "EC", curve: "P-384", x: x, y: x))
        }
        #expect(throws: KeyError.invalidJWK("missing y")) {
            try VerificationKey(jwk: JWK(keyType: "EC", curve: "P-256", x: x))
        }
        #expect(throws: KeyError.invalidJWK("x must be 32 bytes")) {
            try VerificationKey(jwk: JWK(keyType: "OKP", curve: "Ed25519", x: "AAAA"))
        }
        #expect(throws: KeyError.invalidJWK("n is not base64url")) {
            try VerificationKey(jwk: JWK(keyType: "RSA", modulus: "a+b", exponent: "AQAB"))
        }
        // (1,1) is not on P-256: an invalid-curve point must never become a key.
        #expect(throws: KeyError.self) { try VerificationKey(jwk: JWK(keyType: "EC", curve: "P-256", x: x, y: x)) }
        #expect(throws: (any Error).self) { try JWK(json: "{}") }
    }

    @Test func jwkJSONRoundTrips() throws {
        let vector = try #require(joseVectors.first { $0.algorithm == .rs256 })
        let decoded = try JWK(json: vector.privateJWK.jsonString)
        #expect(decoded == vector.privateJWK)
        #expect(decoded.publicKey.d == nil && decoded.publicKey.p == nil && decoded.publicKey.qi == nil)
        #expect(decoded.publicKey.modulus == vector.publicJWK.modulus)
        let set = JWKSet(keys: [vector.publicJWK])
        #expect(set.jsonString.hasPrefix(#"{"keys":[{"#))
        #expect(try JWKSet(json: set.jsonString) == set)
    }
}
