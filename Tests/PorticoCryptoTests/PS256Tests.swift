import COpenSSL
import Foundation
import PorticoCrypto
import Testing

/// RSASSA-PSS (PS256, RFC 7518 §3.5): Portico's signatures are PSS with SHA-256, MGF1-SHA-256
/// and a 32-byte salt, and an RSA key verifies PS256 only where its JWK allows it.
@Suite struct PS256Tests {
    private var vector: JOSEVectorCase {
        get throws { try #require(joseVectors.first { $0.algorithm == .ps256 }) }
    }
    private var rs256Vector: JOSEVectorCase {
        get throws { try #require(joseVectors.first { $0.algorithm == .rs256 }) }
    }

    @Test func signAndVerifyRoundTrip() throws {
        let key = try SigningKey.generate(.ps256)
        #expect(key.algorithm == .ps256)
        #expect(key.publicJWK.keyType == "RSA")
        #expect(key.publicJWK.algorithm == "PS256")
        let first = JWS.sign(payload: Array(#"{"sub":"a"}"#.utf8), key: key, type: "JWT")
        let second = JWS.sign(payload: Array(#"{"sub":"a"}"#.utf8), key: key, type: "JWT")
        // A fresh salt each time: two signatures of one message differ, and both verify.
        #expect(first != second)
        let verifier = JWSVerifier(keys: [key.verificationKey])
        for token in [first, second] {
            let verified = try verifier.verify(token, algorithms: [.ps256])
            #expect(verified.header.algorithm == .ps256)
            #expect(signatureBytes(of: token)?.count == 256)
        }
        #expect(throws: JOSEError.algorithmNotAllowed(.ps256)) { try verifier.verify(first, algorithms: [.rs256]) }
        let tampered = replacingPart(1, of: first, with: Base64URL.encode(#"{"sub":"b"}"#))
        #expect(throws: JOSEError.invalidSignature) { try verifier.verify(tampered, algorithms: [.ps256]) }
    }

    /// OpenSSL's own view, set up here with every PSS parameter spelled out: a Portico PS256
    /// signature (made from a copied template, as every signature is) is PSS with a 32-byte
    /// salt and MGF1-SHA-256, and not PKCS#1 v1.5.
    @Test func porticoSignatureIsPSSWithA32ByteSalt() throws {
        let vector = try vector
        let signingKey = try SigningKey(jwk: vector.privateJWK)
        #expect(signingKey.algorithm == .ps256)
        let token = JWS.sign(payload: Array(vector.payload.utf8), key: signingKey, type: "JWT")
        let parts = token.split(separator: ".")
        let signature = try #require(Base64URL.decode(parts[2]))
        let input = Array("\(parts[0]).\(parts[1])".utf8)
        let pem = Array(signingKey.pemRepresentation.utf8)
        let key = try #require(
            pem.withUnsafeBytes { buffer -> OpaquePointer? in
                let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count))
                defer { BIO_free(bio) }
                return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
            })
        defer { EVP_PKEY_free(key) }
        func verifies(pss: Bool, salt: Int32 = 32) -> Bool {
            let context = EVP_MD_CTX_new()
            defer { EVP_MD_CTX_free(context) }
            var keyContext: OpaquePointer?
            guard EVP_DigestVerifyInit(context, &keyContext, EVP_sha256(), nil, key) == 1 else { return false }
            if pss {
                guard EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PSS_PADDING) == 1,
                    EVP_PKEY_CTX_set_rsa_mgf1_md(keyContext, EVP_sha256()) == 1,
                    EVP_PKEY_CTX_set_rsa_pss_saltlen(keyContext, salt) == 1
                else { return false }
            }
            let result = EVP_DigestVerify(context, signature, signature.count, input, input.count)
            ERR_clear_error()
            return result == 1
        }
        #expect(verifies(pss: true, salt: 32))
        #expect(!verifies(pss: true, salt: 20))
        #expect(!verifies(pss: false))
    }

    /// Algorithm confusion: an RSA key whose JWK says RS256 verifies no PS256 token, and one
    /// that says PS256 no RS256 token, even under the same `kid` and with both allowed.
    @Test func rs256KeyRefusesPS256AndViceVersa() throws {
        let vector = try vector
        let rs256 = try rs256Vector
        let both: Set<SignatureAlgorithm> = [.rs256, .ps256]

        var saysRS256 = vector.publicJWK
        saysRS256.algorithm = "RS256"
        let rsVerifier = JWSVerifier(keys: [try VerificationKey(jwk: saysRS256)])
        for token in vector.valid {
            #expect(throws: JOSEError.keyAlgorithmMismatch(token: .ps256, key: .rs256)) {
                try rsVerifier.verify(token, algorithms: both)
            }
        }

        var saysPS256 = rs256.publicJWK
        saysPS256.algorithm = "PS256"
        let psVerifier = JWSVerifier(keys: [try VerificationKey(jwk: saysPS256)])
        for token in rs256.valid {
            #expect(throws: JOSEError.keyAlgorithmMismatch(token: .rs256, key: .ps256)) {
                try psVerifier.verify(token, algorithms: both)
            }
        }

        // A PKCS#1 v1.5 signature by the very key, over a PS256 header, is refused by its PS256 form.
        let rsSigner = try SigningKey(jwk: rs256.privateJWK)
        let input =
            Base64URL.encode(#"{"alg":"PS256","kid":"\#(rs256.publicJWK.keyID ?? "")"}"#) + "."
            + Base64URL.encode(#"{"sub":"x"}"#)
        let relabelled = input + "." + Base64URL.encode(try #require(rsSigner.signature(of: Array(input.utf8))))
        #expect(throws: JOSEError.invalidSignature) { try psVerifier.verify(relabelled, algorithms: both) }

        // A private JWK may not say PS256 for an EC key, nor a public one.
        let es256 = try #require(joseVectors.first { $0.algorithm == .es256 })
        var ecSaysPS256 = es256.publicJWK
        ecSaysPS256.algorithm = "PS256"
        #expect(throws: KeyError.algorithmMismatch("PS256")) { try VerificationKey(jwk: ecSaysPS256) }
    }

    /// An RSA JWK without `alg` is both: ``VerificationKey/keys(for:)`` gives an RS256 and a
    /// PS256 key under one `kid`, and the verifier picks by the header.
    @Test func rsaJWKWithoutAlgVerifiesBoth() throws {
        let vector = try vector
        var bare = vector.publicJWK
        bare.algorithm = nil
        let keys = try VerificationKey.keys(for: bare)
        #expect(keys.map(\.algorithm) == [.rs256, .ps256])
        #expect(Set(keys.map(\.keyID)) == [vector.publicJWK.keyID ?? ""])
        #expect(keys.map(\.jwk.algorithm) == ["RS256", "PS256"])
        let verifier = JWSVerifier(keys: keys)
        for token in vector.valid { _ = try verifier.verify(token, algorithms: [.ps256]) }
        var rsPrivate = vector.privateJWK
        rsPrivate.algorithm = "RS256"
        let rsToken = JWS.sign(payload: Array(#"{"sub":"x"}"#.utf8), key: try SigningKey(jwk: rsPrivate))
        _ = try verifier.verify(rsToken, algorithms: [.rs256])
        // The same through a JWK Set, as a client's jwks_uri or a provider's JWKS is read.
        let fromSet = try JWSVerifier(keySet: JWKSet(keys: [bare]))
        for token in vector.valid + [rsToken] { _ = try fromSet.verify(token, algorithms: [.rs256, .ps256]) }
        // A JWK that names its algorithm gives that one key only.
        #expect(try VerificationKey.keys(for: vector.publicJWK).map(\.algorithm) == [.ps256])
        let es256 = try #require(joseVectors.first { $0.algorithm == .es256 })
        #expect(try VerificationKey.keys(for: es256.publicJWK).map(\.algorithm) == [.es256])
    }

    /// A DPoP-style proof carries its own RSA key without `alg`: PS256 in the header verifies;
    /// a key that says RS256 does not.
    @Test func embeddedRSAKeyVerifiesPS256() throws {
        let key = try SigningKey.generate(.ps256)
        var embedded = key.publicJWK
        embedded.algorithm = nil
        embedded.keyID = nil
        embedded.use = nil
        let cache = EmbeddedKeyCache()
        func proof(_ jwk: JWK) throws -> String {
            let header = #"{"typ":"dpop+jwt","alg":"PS256","jwk":\#(jwk.jsonString)}"#
            let input = Base64URL.encode(header) + "." + Base64URL.encode(#"{"jti":"1"}"#)
            let signature = try #require(key.signature(of: Array(input.utf8)))
            return input + "." + Base64URL.encode(signature)
        }
        let token = try proof(embedded)
        for _ in 0..<2 {
            let verified = try JWSVerifier.verifyWithEmbeddedKey(
                token, algorithms: [.ps256, .rs256], type: "dpop+jwt", keyCache: cache)
            #expect(verified.key.algorithm == .ps256)
        }
        embedded.algorithm = "RS256"
        #expect(throws: JOSEError.keyAlgorithmMismatch(token: .ps256, key: .rs256)) {
            try JWSVerifier.verifyWithEmbeddedKey(try proof(embedded), algorithms: [.ps256, .rs256], type: "dpop+jwt")
        }
    }

    @Test func rsa1024IsRefusedForPS256() throws {
        #expect(throws: KeyError.rsaKeyTooSmall(bits: 1024)) { try SigningKey(pem: rsa1024PEM, algorithm: .ps256) }
        #expect(throws: KeyError.rsaKeyTooSmall(bits: 1024)) {
            try SigningKey.generateRSA(bits: 1024, algorithm: .ps256)
        }
        let modulus = Base64URL.encode([UInt8](repeating: 0xC5, count: 128))
        #expect(throws: KeyError.rsaKeyTooSmall(bits: 1024)) {
            try VerificationKey.keys(for: JWK(keyType: "RSA", algorithm: "PS256", modulus: modulus, exponent: "AQAB"))
        }
        #expect(throws: KeyError.rsaKeyTooSmall(bits: 1024)) {
            try VerificationKey.keys(for: JWK(keyType: "RSA", modulus: modulus, exponent: "AQAB"))
        }
    }

    /// A PS256 key stored as PEM comes back as PS256 only when told: PEM has no `alg`.
    @Test func pemKeepsTheKeyButNotTheAlgorithm() throws {
        let key = try SigningKey.generateRSA(bits: 3072, algorithm: .ps256)
        let loaded = try SigningKey(pem: key.pemRepresentation, keyID: key.keyID, algorithm: .ps256)
        #expect(loaded.algorithm == .ps256)
        #expect(loaded.publicJWK == key.publicJWK)
        let token = JWS.sign(payload: Array("{}".utf8), key: loaded)
        #expect(signatureBytes(of: token)?.count == 384)
        _ = try JWSVerifier(keys: [key.verificationKey]).verify(token, algorithms: [.ps256])
        #expect(try SigningKey(pem: key.pemRepresentation).algorithm == .rs256)
        #expect(throws: KeyError.algorithmMismatch("PS256")) {
            try SigningKey(pem: try SigningKey.generate(.es256).pemRepresentation, algorithm: .ps256)
        }
        #expect(throws: KeyError.algorithmMismatch("ES256")) {
            try SigningKey.generateRSA(bits: 2048, algorithm: .es256)
        }
    }
}
