import Foundation
import PorticoCrypto
import Testing

/// ``EmbeddedKeyCache``: a proof header seen before skips making its key, and nothing else is
/// skipped — every proof's signature is still checked, and refused headers are never cached.
@Suite struct EmbeddedKeyCacheTests {
    /// A DPoP-shaped token: `typ` `dpop+jwt`, the key's public JWK in the header.
    static func proof(by key: SigningKey, jwk: JWK? = nil, jti: String = SecureRandom.token()) -> String {
        var claims = JWTClaims(issuedAt: Date(), jwtID: jti)
        claims["htm"] = "POST"
        let embedded = JSONValue(parsing: Array((jwk ?? key.publicJWK).jsonString.utf8)) ?? .null
        return JWS.sign(payload: claims.jsonBytes(), key: key, type: "dpop+jwt", additionalHeader: ["jwk": embedded])
    }

    @Test func oneKeysProofsShareOneEntryAndEachIsStillVerified() throws {
        let cache = EmbeddedKeyCache()
        let key = try SigningKey.generate(.es256)
        let first = Self.proof(by: key)
        let second = Self.proof(by: key)
        #expect(first.prefix(while: { $0 != "." }) == second.prefix(while: { $0 != "." }))
        for token in [first, second] {
            let verified = try JWSVerifier.verifyWithEmbeddedKey(token, algorithms: [.es256], keyCache: cache)
            #expect(verified.header.type == "dpop+jwt")
        }
        #expect(cache.count == 1)
        // The cached key does not vouch for the signature: a proof with the same header and
        // another proof's signature is refused.
        let forged =
            first.split(separator: ".").prefix(2).joined(separator: ".") + "."
            + second.split(separator: ".")[2]
        #expect(throws: JOSEError.self) {
            try JWSVerifier.verifyWithEmbeddedKey(forged, algorithms: [.es256], keyCache: cache)
        }
        // Another key is another entry.
        _ = try JWSVerifier.verifyWithEmbeddedKey(
            Self.proof(by: try SigningKey.generate(.es256)), algorithms: [.es256], keyCache: cache)
        #expect(cache.count == 2)
    }

    @Test func refusedHeadersAreNotCachedAndRefusedAgain() throws {
        let cache = EmbeddedKeyCache()
        let key = try SigningKey.generate(.es256)
        // A header with a private member: refused both times, never cached.
        var privateJWK = key.publicJWK
        privateJWK.d = Base64URL.encode(SecureRandom.bytes(count: 32))
        let leaky = Self.proof(by: key, jwk: privateJWK)
        for _ in 0..<2 {
            #expect(throws: JOSEError.privateEmbeddedKey) {
                try JWSVerifier.verifyWithEmbeddedKey(leaky, algorithms: [.es256], keyCache: cache)
            }
        }
        // A cached key still has to match the token's alg when the algorithm is not allowed.
        let good = Self.proof(by: key)
        _ = try JWSVerifier.verifyWithEmbeddedKey(good, algorithms: [.es256], keyCache: cache)
        #expect(throws: JOSEError.self) {
            try JWSVerifier.verifyWithEmbeddedKey(good, algorithms: [.rs256], keyCache: cache)
        }
        #expect(cache.count == 1)
    }

    @Test func pastItsCapacityTheCacheStartsAgain() throws {
        let cache = EmbeddedKeyCache(capacity: 3)
        for _ in 0..<7 {
            _ = try JWSVerifier.verifyWithEmbeddedKey(
                Self.proof(by: try SigningKey.generate(.es256)), algorithms: [.es256], keyCache: cache)
            #expect(cache.count <= 3)
        }
        #expect(cache.count == 1)
    }
}
