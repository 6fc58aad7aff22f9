import COpenSSL
import Foundation
import PorticoCrypto
import Testing

@Suite struct JOSEVectorTests {
    @Test func vectorFileHasEveryAlgorithm() {
        #expect(Set(joseVectors.compactMap(\.algorithm)) == Set(SignatureAlgorithm.allCases))
        #expect(joseVectors.count == joseVectors.compactMap(\.algorithm).count)
        for vector in joseVectors {
            #expect(!vector.valid.isEmpty)
            #expect(!vector.invalid.isEmpty)
        }
    }

    @Test(arguments: joseVectors) func validTokensVerifyWithThePublicJWK(_ vector: JOSEVectorCase) throws {
        let algorithm = try #require(vector.algorithm)
        let verifier = JWSVerifier(keys: [try VerificationKey(jwk: vector.publicJWK)])
        for token in vector.valid {
            let verified = try verifier.verify(token, algorithms: [algorithm])
            #expect(verified.payload == Array(vector.payload.utf8))
            #expect(verified.header.algorithm == algorithm)
            #expect(verified.header.keyID == vector.publicJWK.keyID)
            #expect(verified.header.type == "JWT")
            let claims = try verified.claims()
            #expect(claims.issuer == "https://issuer.example")
            #expect(claims.audience == ["client-1"])
        }
    }

    @Test(arguments: joseVectors) func invalidTokensAreRejected(_ vector: JOSEVectorCase) throws {
        let algorithm = try #require(vector.algorithm)
        let verifier = JWSVerifier(keys: [try VerificationKey(jwk: vector.publicJWK)])
        var rejected = 0
        for (name, token) in vector.invalid.sorted(by: { $0.key < $1.key }) {
            let error = #expect(throws: JOSEError.self, "\(vector.alg) \(name)") {
                try verifier.verify(token, algorithms: Set(SignatureAlgorithm.allCases))
            }
            // Rejected for the reason the name says, not by accident.
            switch name {
            case "alg_none": #expect(error == .algorithmNone)
            case "truncated": #expect(error == .wrongPartCount(2))
            // PS256's own: RFC 7518 §3.5 fixes the salt at 32 bytes, and PKCS#1 v1.5 padding
            // by the same key is RS256, not PS256.
            case "flipped_signature_bit", "signed_by_other_key", "tampered_payload", "salt_length_20",
                "pkcs1_v1_5_signature":
                #expect(error == .invalidSignature, "\(vector.alg) \(name)")
            default: #expect(error != nil)
            }
            // Also rejected when only the case's own algorithm is allowed.
            #expect(throws: JOSEError.self) { try verifier.verify(token, algorithms: [algorithm]) }
            if error != nil { rejected += 1 }
        }
        #expect(rejected == vector.invalid.count)
    }

    @Test(arguments: joseVectors) func porticoSignedTokensVerifyWithThePublicJWK(_ vector: JOSEVectorCase) throws {
        let algorithm = try #require(vector.algorithm)
        let signingKey = try SigningKey(jwk: vector.privateJWK)
        #expect(signingKey.algorithm == algorithm)
        #expect(signingKey.keyID == vector.privateJWK.keyID)
        let token = JWS.sign(payload: Array(vector.payload.utf8), key: signingKey, type: "JWT")
        let verifier = JWSVerifier(keys: [try VerificationKey(jwk: vector.publicJWK)])
        let verified = try verifier.verify(token, algorithms: [algorithm])
        #expect(verified.payload == Array(vector.payload.utf8))
        // RS256 and Ed25519 signatures are deterministic: Portico must produce the very token
        // (ES256 and PS256 ones are randomised).
        if algorithm == .rs256 || algorithm == .edDSA {
            #expect(vector.valid.contains(token))
        }
        // And the private key verifies the independent implementation's token too.
        let ownVerifier = JWSVerifier(keys: [signingKey.verificationKey])
        for valid in vector.valid {
            _ = try ownVerifier.verify(valid, algorithms: [algorithm])
        }
    }

    @Test(arguments: joseVectors) func publicJWKExportMatchesTheVector(_ vector: JOSEVectorCase) throws {
        let signingKey = try SigningKey(jwk: vector.privateJWK)
        let exported = signingKey.publicJWK
        #expect(exported.modulus == vector.publicJWK.modulus)
        #expect(exported.exponent == vector.publicJWK.exponent)
        #expect(exported.x == vector.publicJWK.x)
        #expect(exported.y == vector.publicJWK.y)
        #expect(exported.curve == vector.publicJWK.curve)
        #expect(exported.d == nil)
        #expect(exported.algorithm == vector.alg)
        #expect(exported.use == "sig")
    }

    /// OpenSSL's own view: the raw R‖S of a Portico ES256 token, turned into DER by hand
    /// through OpenSSL, verifies with `EVP_DigestVerify` on the vector's key.
    @Test func porticoES256SignatureVerifiesAsDERInOpenSSL() throws {
        let vector = try #require(joseVectors.first { $0.algorithm == .es256 })
        let signingKey = try SigningKey(jwk: vector.privateJWK)
        let token = JWS.sign(payload: Array(vector.payload.utf8), key: signingKey, type: "JWT")
        let parts = token.split(separator: ".")
        let raw = try #require(Base64URL.decode(parts[2]))
        #expect(raw.count == 64)
        let signingInput = Array("\(parts[0]).\(parts[1])".utf8)

        let der = try #require(derSignature(raw))
        let pem = Array(signingKey.pemRepresentation.utf8)
        let key = try #require(
            pem.withUnsafeBytes { buffer -> OpaquePointer? in
                let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count))
                defer { BIO_free(bio) }
                return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
            })
        defer { EVP_PKEY_free(key) }
        let context = EVP_MD_CTX_new()
        defer { EVP_MD_CTX_free(context) }
        #expect(EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1)
        #expect(EVP_DigestVerify(context, der, der.count, signingInput, signingInput.count) == 1)
        // The vector's own token, likewise.
        let validToken = try #require(vector.valid.first)
        let validParts = validToken.split(separator: ".")
        let validRaw = try #require(Base64URL.decode(validParts[2]))
        let validDER = try #require(derSignature(validRaw))
        let validInput = Array("\(validParts[0]).\(validParts[1])".utf8)
        let second = EVP_MD_CTX_new()
        defer { EVP_MD_CTX_free(second) }
        #expect(EVP_DigestVerifyInit(second, nil, EVP_sha256(), nil, key) == 1)
        #expect(EVP_DigestVerify(second, validDER, validDER.count, validInput, validInput.count) == 1)
    }

    private func derSignature(_ raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 64, let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let r = BN_bin2bn(raw, 32, nil)
        let s = Array(raw[32...]).withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 32, nil) }
        guard ECDSA_SIG_set0(signature, r, s) == 1 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(i2d_ECDSA_SIG(signature, nil)))
        let length = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        return length == der.count ? der : nil
    }
}

@Suite struct PKCEVectorTests {
    @Test func vectorFileIsRead() {
        #expect(pkceVectors.count >= 4)
    }

    @Test(arguments: pkceVectors) func challengeMatchesVector(_ vector: PKCEVectorCase) {
        #expect(PKCE.isValidVerifier(vector.codeVerifier))
        #expect(PKCE.challenge(for: vector.codeVerifier) == vector.codeChallenge)
        #expect(PKCE.verify(vector.codeVerifier, matches: vector.codeChallenge))
        #expect(!PKCE.verify(vector.codeVerifier + "x", matches: vector.codeChallenge))
    }
}
