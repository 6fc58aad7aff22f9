// Crypto benchmark: JWS sign/verify per algorithm (1 and 2 threads) and Argon2id cost.
// Run: swift run -c release --scratch-path .build-crypto portico-bench-crypto
import Dispatch
import Foundation
import PorticoCrypto
import PorticoServer
import Synchronization

/// How long each throughput measurement runs.
let measurementSeconds = 1.5

/// A typical access token's claims: about 300 bytes of JSON.
func typicalClaims() -> JWTClaims {
    let now = Date()
    var claims = JWTClaims(
        issuer: "https://id.portico.example", subject: "usr_8f3a2c1e9b7d4f60a5c2", audience: ["cli_4d2b9e7a1f3c"],
        expiresAt: now.addingTimeInterval(3600), issuedAt: now, jwtID: SecureRandom.token(bits: 128))
    claims["client_id"] = "cli_4d2b9e7a1f3c"
    claims["scope"] = "openid profile email postal_code"
    claims["auth_time"] = .integer(Int64(now.timeIntervalSince1970) - 120)
    claims["email"] = "someone@example.com"
    claims["nonce"] = .string(SecureRandom.token(bits: 96))
    return claims
}

/// Operations per second of `operation`, run on `threads` threads for `measurementSeconds`.
func throughput(threads: Int, _ operation: @escaping @Sendable () -> Void) -> Double {
    let counts = Mutex([Int](repeating: 0, count: threads))
    let start = DispatchTime.now().uptimeNanoseconds
    let deadline = start + UInt64(measurementSeconds * 1e9)
    DispatchQueue.concurrentPerform(iterations: threads) { index in
        var count = 0
        while DispatchTime.now().uptimeNanoseconds < deadline {
            for _ in 0..<16 { operation() }
            count += 16
        }
        counts.withLock { $0[index] = count }
    }
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    return Double(counts.withLock { $0.reduce(0, +) }) / elapsed
}

func formatted(_ value: Double, width: Int = 12) -> String {
    let text = String(format: "%.0f", value)
    return String(repeating: " ", count: max(0, width - text.count)) + text
}

func padded(_ text: String, _ width: Int) -> String {
    text + String(repeating: " ", count: max(0, width - text.count))
}

let claims = typicalClaims()
let payload = claims.jsonBytes()
print(
    "Portico crypto benchmark (\(ProcessInfo.processInfo.activeProcessorCount) cores), payload \(payload.count) bytes")
print("")

// JSON: the hand-written writer on the signing path against Foundation's JSONEncoder.
struct EncodableClaims: Encodable {
    let iss: String
    let sub: String
    let aud: String
    let exp: Int
    let iat: Int
    let jti: String
    let clientID: String
    let scope: String
    let authTime: Int
    let email: String
    let nonce: String

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, jti, scope, email, nonce
        case clientID = "client_id"
        case authTime = "auth_time"
    }
}
let encodable = EncodableClaims(
    iss: claims.issuer ?? "", sub: claims.subject ?? "", aud: claims.audience.first ?? "", exp: 4_102_444_800,
    iat: 1_700_000_000, jti: claims.jwtID ?? "", clientID: "cli_4d2b9e7a1f3c", scope: "openid profile",
    authTime: 1_700_000_000, email: "someone@example.com", nonce: "n")
let writerRate = throughput(threads: 1) { _ = claims.jsonBytes() }
let encoderRate = throughput(threads: 1) { _ = try? JSONEncoder().encode(encodable) }
print("JSON payload encoding (1 thread)")
print("  JWTClaims.jsonBytes   \(formatted(writerRate)) /s  (\(String(format: "%.2f", 1e6 / writerRate)) µs)")
print("  JSONEncoder           \(formatted(encoderRate)) /s  (\(String(format: "%.2f", 1e6 / encoderRate)) µs)")
print("")

print("JWS (typical JWT, ~\(payload.count)-byte payload)")
print("  \(padded("algorithm", 10))\(padded("", 2))   sign/s 1T   sign/s 2T  verify/s 1T  verify/s 2T")
for algorithm in SignatureAlgorithm.allCases {
    guard let key = try? SigningKey.generate(algorithm) else {
        print("  \(algorithm.rawValue): key generation failed")
        continue
    }
    let verifier = JWSVerifier(keys: [key.verificationKey])
    let token = JWS.sign(claims: claims, key: key, type: "at+jwt")
    let sign1 = throughput(threads: 1) { _ = JWS.sign(claims: claims, key: key, type: "at+jwt") }
    let sign2 = throughput(threads: 2) { _ = JWS.sign(claims: claims, key: key, type: "at+jwt") }
    let verify1 = throughput(threads: 1) { _ = try? verifier.verify(token, algorithms: [algorithm], type: "at+jwt") }
    let verify2 = throughput(threads: 2) { _ = try? verifier.verify(token, algorithms: [algorithm], type: "at+jwt") }
    print(
        "  \(padded(algorithm.rawValue, 12))\(formatted(sign1))\(formatted(sign2))\(formatted(verify1, width: 13))"
            + "\(formatted(verify2, width: 13))")
}
print("")

// DPoP proofs (RFC 9449) carry their key in the header: verifying one without a cache makes
// an OpenSSL key from the JWK every time; with EmbeddedKeyCache a key's second proof onwards
// skips that, which is the server's case (one key per app installation).
if let proofKey = try? SigningKey.generate(.es256),
    let embedded = JSONValue(parsing: Array(proofKey.publicJWK.jsonString.utf8))
{
    var proofClaims = JWTClaims(issuedAt: Date(), jwtID: SecureRandom.token())
    proofClaims["htm"] = "POST"
    proofClaims["htu"] = "https://id.portico.example/oauth/token"
    let proof = JWS.sign(
        payload: proofClaims.jsonBytes(), key: proofKey, type: "dpop+jwt", additionalHeader: ["jwk": embedded])
    let cache = EmbeddedKeyCache()
    let fresh1 = throughput(threads: 1) {
        _ = try? JWSVerifier.verifyWithEmbeddedKey(proof, algorithms: [.es256], type: "dpop+jwt")
    }
    let cached1 = throughput(threads: 1) {
        _ = try? JWSVerifier.verifyWithEmbeddedKey(proof, algorithms: [.es256], type: "dpop+jwt", keyCache: cache)
    }
    let verifier = JWSVerifier(keys: [proofKey.verificationKey])
    let known = JWS.sign(claims: proofClaims, key: proofKey, type: "dpop+jwt")
    let bare1 = throughput(threads: 1) { _ = try? verifier.verify(known, algorithms: [.es256], type: "dpop+jwt") }
    print("DPoP proof, ES256, key in the header (1 thread)")
    print("  key made from the JWK   \(formatted(fresh1)) /s  (\(String(format: "%.1f", 1e6 / fresh1)) µs)")
    print("  key from the cache      \(formatted(cached1)) /s  (\(String(format: "%.1f", 1e6 / cached1)) µs)")
    print("  known key (kid)         \(formatted(bare1)) /s  (\(String(format: "%.1f", 1e6 / bare1)) µs)")
    print("")
}

let hasher = PasswordHasher()
var milliseconds: [Double] = []
for index in 0..<21 {
    let start = DispatchTime.now().uptimeNanoseconds
    _ = try? hasher.hash("correct horse battery staple \(index)")
    milliseconds.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
}
milliseconds.sort()
let settings = hasher.settings
print("Argon2id (m=\(settings.memoryKiB) KiB, t=\(settings.iterations), p=\(settings.parallelism)), 21 hashes")
print(
    String(
        format: "  median %.1f ms   min %.1f ms   max %.1f ms", milliseconds[milliseconds.count / 2],
        milliseconds[0], milliseconds[milliseconds.count - 1]))
