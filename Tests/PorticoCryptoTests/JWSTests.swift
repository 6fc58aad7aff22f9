import Foundation
import PorticoCrypto
import Synchronization
import Testing

/// Keys generated once for the whole suite; generation (RSA especially) is slow.
private let keys: [SignatureAlgorithm: SigningKey] = {
    var result: [SignatureAlgorithm: SigningKey] = [:]
    for algorithm in SignatureAlgorithm.allCases {
        result[algorithm] = try? SigningKey.generate(algorithm)
    }
    return result
}()

private func key(_ algorithm: SignatureAlgorithm) throws -> SigningKey {
    try #require(keys[algorithm])
}

private let allAlgorithms = Set(SignatureAlgorithm.allCases)

@Suite struct JWSRoundTripTests {
    @Test(arguments: SignatureAlgorithm.allCases) func signAndVerify(_ algorithm: SignatureAlgorithm) throws {
        let signingKey = try key(algorithm)
        let payload = Array(#"{"sub":"u-1","scope":"openid profile"}"#.utf8)
        let token = JWS.sign(payload: payload, key: signingKey, type: "at+jwt")
        let verifier = JWSVerifier(keys: [signingKey.verificationKey])
        let verified = try verifier.verify(token, algorithms: [algorithm], type: "at+jwt")
        #expect(verified.payload == payload)
        #expect(verified.header.keyID == signingKey.keyID)
        #expect(verified.header.type == "at+jwt")
        #expect(verified.key.keyID == signingKey.keyID)
    }

    @Test(arguments: SignatureAlgorithm.allCases) func verifiesThroughThePublishedJWKS(_ algorithm: SignatureAlgorithm)
        throws
    {
        let signingKey = try key(algorithm)
        let document = JWKSet(signingKeys: Array(keys.values)).jsonString
        #expect(!document.contains(#""d":"#))
        let verifier = try JWSVerifier(keySet: try JWKSet(json: document))
        let claims = JWTClaims(issuer: "https://id.example", subject: "u-1", audience: ["client"])
        let token = JWS.sign(claims: claims, key: signingKey)
        #expect(try verifier.verify(token, algorithms: [algorithm]).claims() == claims)
    }

    /// Every signature and verification copies one context prepared per key (``EVPKey``); many
    /// threads doing so at once must still each get a signature of their own message, valid,
    /// and tampered messages must still fail, while other threads use the same key. Four real
    /// threads (more than the cores), verifying with the signing key and with the public key
    /// read from the JWKS (its own, verify-only template).
    @Test(arguments: SignatureAlgorithm.allCases) func oneKeySignsAndVerifiesOnManyThreadsAtOnce(
        _ algorithm: SignatureAlgorithm
    ) throws {
        let signingKey = try key(algorithm)
        let verifiers = [
            JWSVerifier(keys: [signingKey.verificationKey]),
            try JWSVerifier(keySet: try JWKSet(json: JWKSet(signingKeys: [signingKey]).jsonString)),
        ]
        let rounds = algorithm == .rs256 ? 40 : 200
        let failures = Mutex(0)
        let done = DispatchSemaphore(value: 0)
        let threads = (0..<4).map { thread in
            Thread {
                for round in 0..<rounds {
                    let verifier = verifiers[(thread + round) % verifiers.count]
                    let payload = Array(#"{"thread":\#(thread),"round":\#(round)}"#.utf8)
                    let token = JWS.sign(payload: payload, key: signingKey)
                    let verified = try? verifier.verify(token, algorithms: [algorithm])
                    var tampered = Array(token.utf8)
                    // The payload's first character after the header's dot: another message.
                    if let dot = tampered.firstIndex(of: UInt8(ascii: ".")) {
                        tampered[dot + 1] =
                            tampered[dot + 1] == UInt8(ascii: "e") ? UInt8(ascii: "f") : UInt8(ascii: "e")
                    }
                    let forged = try? verifier.verify(
                        String(decoding: tampered, as: UTF8.self), algorithms: [algorithm])
                    if verified?.payload != payload || forged != nil { failures.withLock { $0 += 1 } }
                }
                done.signal()
            }
        }
        for thread in threads { thread.start() }
        for _ in threads { done.wait() }
        #expect(failures.withLock { $0 } == 0)
    }

    @Test func signaturesHaveJOSELengths() throws {
        for algorithm in SignatureAlgorithm.allCases {
            let token = JWS.sign(payload: Array("x".utf8), key: try key(algorithm))
            let signature = try #require(signatureBytes(of: token))
            #expect(signature.count == (algorithm.keyType == "RSA" ? 256 : 64))
        }
    }

    @Test func additionalHeaderMembersAreSignedButCannotOverrideAlgOrKid() throws {
        let signingKey = try key(.es256)
        let token = JWS.sign(
            payload: Array("{}".utf8), key: signingKey, additionalHeader: ["alg": "none", "kid": "other", "x5t": "abc"])
        let verified = try JWSVerifier(keys: [signingKey.verificationKey]).verify(token, algorithms: [.es256])
        #expect(verified.header.algorithm == .es256)
        #expect(verified.header.keyID == signingKey.keyID)
        #expect(verified.header.parameters["x5t"] == "abc")
    }

    @Test func concurrentSigningWithOneKeyIsSafe() async throws {
        let signingKey = try key(.es256)
        let verifier = JWSVerifier(keys: [signingKey.verificationKey])
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<16 {
                group.addTask {
                    (0..<50).allSatisfy { round in
                        let payload = Array(#"{"n":\#(index * 100 + round)}"#.utf8)
                        let token = JWS.sign(payload: payload, key: signingKey)
                        return (try? verifier.verify(token, algorithms: [.es256]).payload) == payload
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 16 && results.allSatisfy { $0 })
    }
}

@Suite struct JWSRejectionTests {
    private var verifier: JWSVerifier {
        get throws { JWSVerifier(keys: try SignatureAlgorithm.allCases.map { try key($0).verificationKey }) }
    }

    private func validToken(_ algorithm: SignatureAlgorithm = .es256) throws -> String {
        JWS.sign(payload: Array(#"{"sub":"u-1"}"#.utf8), key: try key(algorithm), type: "JWT")
    }

    @Test func algorithmNone() throws {
        let token = forgeToken(header: #"{"alg":"none"}"#, signature: [])
        #expect(throws: JOSEError.algorithmNone) { try verifier.verify(token, algorithms: allAlgorithms) }
        let shouting = forgeToken(header: #"{"alg":"NONE","kid":"k"}"#, signature: [])
        #expect(throws: JOSEError.algorithmNone) { try verifier.verify(shouting, algorithms: allAlgorithms) }
    }

    @Test(arguments: SignatureAlgorithm.allCases) func hmacKeyedWithThePublicKey(_ algorithm: SignatureAlgorithm)
        throws
    {
        let signingKey = try key(algorithm)
        for secret in [signingKey.publicJWK.jsonString, signingKey.pemRepresentation] {
            let header = Base64URL.encode(#"{"alg":"HS256","kid":"\#(signingKey.keyID)","typ":"JWT"}"#)
            let payload = Base64URL.encode(#"{"sub":"admin"}"#)
            let mac = HMAC.authenticationCode(for: Array("\(header).\(payload)".utf8), key: Array(secret.utf8))
            let token = "\(header).\(payload).\(Base64URL.encode(mac))"
            #expect(throws: JOSEError.unsupportedAlgorithm("HS256")) {
                try verifier.verify(token, algorithms: allAlgorithms)
            }
        }
    }

    @Test func ecKeyOfferedForAnRS256Token() throws {
        let ecKey = try key(.es256)
        // An RS256 header whose kid names the EC key, signed (pointlessly) with the RSA key.
        let rsa = try key(.rs256)
        let signature = try #require(signatureBytes(of: try validToken(.rs256)))
        let token = forgeToken(header: #"{"alg":"RS256","kid":"\#(ecKey.keyID)"}"#, signature: signature)
        #expect(throws: JOSEError.keyAlgorithmMismatch(token: .rs256, key: .es256)) {
            try verifier.verify(token, algorithms: allAlgorithms)
        }
        _ = rsa
    }

    @Test func keyWhoseJWKAlgDiffers() throws {
        var jwk = try key(.rs256).publicJWK
        jwk.algorithm = "ES256"
        #expect(throws: KeyError.algorithmMismatch("ES256")) { try VerificationKey(jwk: jwk) }
        // PS256 is an RSA algorithm (PS256Tests); PS384 is none Portico has.
        jwk.algorithm = "PS384"
        #expect(throws: KeyError.algorithmMismatch("PS384")) { try VerificationKey(jwk: jwk) }
        var privateJWK = try #require(joseVectors.first { $0.algorithm == .es256 }).privateJWK
        privateJWK.algorithm = "EdDSA"
        #expect(throws: KeyError.algorithmMismatch("EdDSA")) { try SigningKey(jwk: privateJWK) }
        // The same RSA key published for RS256 does not verify an ES256 token naming it.
        let rsaJWK = try key(.rs256).publicJWK
        let esVerifier = JWSVerifier(keys: [try VerificationKey(jwk: rsaJWK)])
        let rsaKeyID = try #require(rsaJWK.keyID)
        let token = forgeToken(header: #"{"alg":"ES256","kid":"\#(rsaKeyID)"}"#)
        #expect(throws: JOSEError.keyAlgorithmMismatch(token: .es256, key: .rs256)) {
            try esVerifier.verify(token, algorithms: allAlgorithms)
        }
    }

    @Test func algorithmNotAcceptedByCaller() throws {
        #expect(throws: JOSEError.algorithmNotAllowed(.es256)) {
            try verifier.verify(try validToken(.es256), algorithms: [.rs256, .edDSA])
        }
    }

    @Test func unknownKeyID() throws {
        let token = replacingPart(0, of: try validToken(), with: Base64URL.encode(#"{"alg":"ES256","kid":"nope"}"#))
        #expect(throws: JOSEError.unknownKeyID("nope")) { try verifier.verify(token, algorithms: allAlgorithms) }
    }

    @Test func missingKeyID() throws {
        let token = replacingPart(0, of: try validToken(), with: Base64URL.encode(#"{"alg":"ES256"}"#))
        #expect(throws: JOSEError.missingKeyID) { try verifier.verify(token, algorithms: allAlgorithms) }
    }

    @Test func badBase64URL() throws {
        let token = try validToken()
        for bad in ["a+b", "ab=", "a/b", "a b", "!", "A"] {
            #expect(throws: JOSEError.invalidHeaderEncoding) {
                try verifier.verify(replacingPart(0, of: token, with: bad), algorithms: allAlgorithms)
            }
            #expect(throws: JOSEError.invalidPayloadEncoding) {
                try verifier.verify(replacingPart(1, of: token, with: bad), algorithms: allAlgorithms)
            }
            #expect(throws: JOSEError.invalidSignatureEncoding) {
                try verifier.verify(replacingPart(2, of: token, with: bad), algorithms: allAlgorithms)
            }
        }
    }

    @Test func wrongPartCount() throws {
        let token = try validToken()
        let parts = token.split(separator: ".").map(String.init)
        #expect(throws: JOSEError.wrongPartCount(1)) { try verifier.verify("", algorithms: allAlgorithms) }
        #expect(throws: JOSEError.wrongPartCount(1)) { try verifier.verify(parts[0], algorithms: allAlgorithms) }
        #expect(throws: JOSEError.wrongPartCount(2)) {
            try verifier.verify("\(parts[0]).\(parts[1])", algorithms: allAlgorithms)
        }
        #expect(throws: JOSEError.wrongPartCount(4)) { try verifier.verify(token + ".", algorithms: allAlgorithms) }
        #expect(throws: JOSEError.wrongPartCount(5)) {
            try verifier.verify(token + ".a.b", algorithms: allAlgorithms)
        }
    }

    @Test func nonJSONHeader() throws {
        let token = try validToken()
        for header in [
            "not json", "[]", #""ES256""#, "{", #"{"alg":"ES256","alg":"ES256","kid":"k"}"#, "{}", #"{"alg":7}"#,
        ] {
            #expect(throws: JOSEError.invalidHeader, "\(header)") {
                try verifier.verify(
                    replacingPart(0, of: token, with: Base64URL.encode(header)), algorithms: allAlgorithms)
            }
        }
        let kidNumber = replacingPart(0, of: token, with: Base64URL.encode(#"{"alg":"ES256","kid":1}"#))
        #expect(throws: JOSEError.invalidHeader) { try verifier.verify(kidNumber, algorithms: allAlgorithms) }
    }

    @Test func criticalHeadersNotUnderstood() throws {
        let signingKey = try key(.es256)
        let token = JWS.sign(
            payload: Array("{}".utf8), key: signingKey, additionalHeader: ["crit": ["exp"], "exp": 1_700_000_000])
        #expect(throws: JOSEError.unsupportedCriticalHeader(["exp"])) {
            try verifier.verify(token, algorithms: allAlgorithms)
        }
        // A verifier told it understands "exp" accepts it.
        let understanding = JWSVerifier(keys: [signingKey.verificationKey], understoodCriticalHeaders: ["exp"])
        #expect(try understanding.verify(token, algorithms: [.es256]).header.critical == ["exp"])
        // Malformed crit values are malformed headers.
        for crit: JSONValue in [[], "exp", ["alg"], [1], ["missing"]] {
            let bad = JWS.sign(payload: Array("{}".utf8), key: signingKey, additionalHeader: ["crit": crit, "exp": 1])
            #expect(throws: JOSEError.invalidHeader, "\(crit)") {
                try understanding.verify(bad, algorithms: allAlgorithms)
            }
        }
        let b64 = JWS.sign(
            payload: Array("{}".utf8), key: signingKey, additionalHeader: ["crit": ["b64"], "b64": false])
        #expect(throws: JOSEError.unsupportedCriticalHeader(["b64"])) {
            try verifier.verify(b64, algorithms: allAlgorithms)
        }
    }

    @Test(arguments: SignatureAlgorithm.allCases) func wrongSignatureLength(_ algorithm: SignatureAlgorithm) throws {
        let token = try validToken(algorithm)
        let expected = algorithm.keyType == "RSA" ? 256 : 64
        for length in [0, 1, expected - 1, expected + 1, 72] {
            let forged = replacingPart(2, of: token, with: Base64URL.encode([UInt8](repeating: 7, count: length)))
            #expect(throws: JOSEError.invalidSignatureLength(expected: expected, actual: length)) {
                try verifier.verify(forged, algorithms: allAlgorithms)
            }
        }
    }

    @Test(arguments: SignatureAlgorithm.allCases) func tamperedPayloadOrSignature(_ algorithm: SignatureAlgorithm)
        throws
    {
        let token = try validToken(algorithm)
        let otherPayload = replacingPart(1, of: token, with: Base64URL.encode(#"{"sub":"u-2"}"#))
        #expect(throws: JOSEError.invalidSignature) { try verifier.verify(otherPayload, algorithms: allAlgorithms) }
        var signature = try #require(signatureBytes(of: token))
        signature[signature.count / 2] ^= 0x01
        let flipped = replacingPart(2, of: token, with: Base64URL.encode(signature))
        #expect(throws: JOSEError.invalidSignature) { try verifier.verify(flipped, algorithms: allAlgorithms) }
        let zeros = replacingPart(2, of: token, with: Base64URL.encode([UInt8](repeating: 0, count: signature.count)))
        #expect(throws: JOSEError.invalidSignature) { try verifier.verify(zeros, algorithms: allAlgorithms) }
    }

    @Test func requiredType() throws {
        let signingKey = try key(.es256)
        let accessToken = JWS.sign(payload: Array("{}".utf8), key: signingKey, type: "at+jwt")
        let verifier = JWSVerifier(keys: [signingKey.verificationKey])
        #expect(throws: Never.self) { try verifier.verify(accessToken, algorithms: [.es256], type: "at+jwt") }
        #expect(throws: Never.self) {
            try verifier.verify(accessToken, algorithms: [.es256], type: "application/AT+JWT")
        }
        let idToken = JWS.sign(payload: Array("{}".utf8), key: signingKey, type: "JWT")
        #expect(throws: JOSEError.wrongType(expected: "at+jwt", actual: "JWT")) {
            try verifier.verify(idToken, algorithms: [.es256], type: "at+jwt")
        }
        let untyped = JWS.sign(payload: Array("{}".utf8), key: signingKey, type: nil)
        #expect(throws: JOSEError.wrongType(expected: "at+jwt", actual: nil)) {
            try verifier.verify(untyped, algorithms: [.es256], type: "at+jwt")
        }
    }

    @Test func oversizedToken() throws {
        let huge = String(repeating: "a", count: JWSVerifier.maximumTokenLength + 1)
        #expect(throws: JOSEError.tokenTooLarge) { try verifier.verify(huge, algorithms: allAlgorithms) }
    }

    @Test func garbageNeverCrashes() throws {
        let verifier = try verifier
        let token = try validToken()
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ABCxyz019-_.=+/ {}\"\u{0}é".unicodeScalars)
        for _ in 0..<2_000 {
            let length = Int.random(in: 0..<120, using: &generator)
            let garbage = String(String.UnicodeScalarView((0..<length).map { _ in alphabet.randomElement()! }))
            #expect(throws: JOSEError.self) { try verifier.verify(garbage, algorithms: allAlgorithms) }
            // Mutations of a valid token: every one is either rejected or (never) the same token.
            var bytes = Array(token.utf8)
            bytes[Int.random(in: 0..<bytes.count)] = UInt8.random(in: 0...255)
            let mutated = String(decoding: bytes, as: UTF8.self)
            if mutated != token {
                #expect(throws: JOSEError.self) { try verifier.verify(mutated, algorithms: allAlgorithms) }
            }
        }
        let deep = Base64URL.encode(String(repeating: "[", count: 5_000))
        #expect(throws: JOSEError.invalidHeader) { try verifier.verify("\(deep).e30.AA", algorithms: allAlgorithms) }
    }
}
