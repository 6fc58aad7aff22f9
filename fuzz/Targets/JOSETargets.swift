import Foundation
import PorticoCrypto

/// Targets for JWS/JWT parsing and verification and for JWK/JWKS import.
enum JOSETargets {
    /// The fixed keys of the JOSE test vectors, so that valid tokens in the corpus stay valid.
    static let keys: [SigningKey] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Tests/PorticoCryptoTests/Vectors/jose.json")
        guard let data = try? Data(contentsOf: url),
            let document = JSONValue(parsing: Array(data)), let cases = document.objectValue?["cases"]?.arrayValue
        else { return [] }
        return cases.compactMap { entry in
            guard let jwk = entry.objectValue?["private_jwk"]?.jsonString else { return nil }
            return (try? JWK(json: jwk)).flatMap { try? SigningKey(jwk: $0) }
        }
    }()

    static let verifier = JWSVerifier(keys: keys.map(\.verificationKey))
    /// The keys `{`-inputs are signed with: not the RSA one, whose signature costs some 30 times
    /// an ES256 or Ed25519 one and made the target spend most of its time in OpenSSL. Which key
    /// signs does not matter to the claim parser, and RS256 verification is still fuzzed by the
    /// token inputs.
    static let payloadSigners = keys.filter { $0.algorithm != .rs256 }
    static let everyAlgorithm: Set<SignatureAlgorithm> = [.rs256, .es256, .edDSA]

    /// A compact JWS is verified with every algorithm allowed and with a required `typ`; what
    /// verifies yields claims or a clean error, and validation never crashes. An input starting
    /// with `{` is instead taken as a payload: signed with each key, it must verify and come
    /// back byte for byte (so the claim parser sees arbitrary JSON behind a good signature).
    /// Keys and verifier are made once: only what depends on the input is done per input.
    static func jws(_ bytes: [UInt8]) {
        FuzzFailure.check(keys.count == 3, "the JOSE vector keys did not load")
        if bytes.first == UInt8(ascii: "{") {
            let key = payloadSigners[bytes.count % payloadSigners.count]
            let token = JWS.sign(payload: bytes, key: key, type: "JWT")
            guard let verified = try? verifier.verify(token, algorithms: everyAlgorithm, type: "jwt") else {
                FuzzFailure.check(token.utf8.count > JWSVerifier.maximumTokenLength, "a signed token did not verify")
                return
            }
            FuzzFailure.check(verified.payload == bytes, "the payload changed")
            validate(verified)
            return
        }
        let token = String(decoding: bytes, as: UTF8.self)
        if let verified = try? verifier.verify(token, algorithms: everyAlgorithm) {
            validate(verified)
        }
        _ = try? verifier.verify(token, algorithms: [.es256], type: "at+jwt")
    }

    private static func validate(_ verified: VerifiedJWS) {
        guard let claims = try? verified.claims() else { return }
        let validator = JWTValidator(
            issuer: "https://issuer.example", audience: "client-1", now: { Date(timeIntervalSince1970: 1_700_000_000) })
        _ = try? validator.validate(claims)
        _ = try? JWTValidator(requiresExpiration: false).validate(claims)
        // Claims written back out read back to the same text.
        let written = claims.jsonBytes()
        FuzzFailure.check((try? JWTClaims(json: written))?.jsonBytes() == written, "claims do not round-trip")
    }

    /// A JWK or a JWK Set: import either fails cleanly or gives a key whose thumbprint and
    /// public form can be computed, and a public key imported again has the same thumbprint.
    static func jwk(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        if let jwk = try? JWK(json: text) {
            check(jwk)
        }
        if let set = try? JWKSet(json: text) {
            for jwk in set.keys.prefix(8) { check(jwk) }
            _ = try? JWSVerifier(keySet: set)
        }
    }

    private static func check(_ jwk: JWK) {
        let thumbprint = try? jwk.thumbprint()
        _ = jwk.jsonString
        guard let key = try? VerificationKey(jwk: jwk) else { return }
        FuzzFailure.check(thumbprint != nil, "a usable key has no thumbprint")
        let again = try? VerificationKey(jwk: key.jwk)
        FuzzFailure.check(again?.algorithm == key.algorithm, "a key's own JWK does not import again")
        // A private key signs a token that verifies. Not an RSA one: its import has just signed
        // and verified a self test, and an RSA signature costs some 30 times an ES256 or Ed25519
        // one (the target spent most of its time in OpenSSL).
        if jwk.isPrivate, let signing = try? SigningKey(jwk: jwk), signing.algorithm != .rs256 {
            let token = JWS.sign(payload: Array("{}".utf8), key: signing)
            _ = try? JWSVerifier(keys: [signing.verificationKey]).verify(token, algorithms: [signing.algorithm])
        }
    }
}
