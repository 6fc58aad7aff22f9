import Foundation
import PorticoCrypto
import Synchronization

/// The RS256 ceiling measured with the server's own signing code: `JWS.sign` of an ID token's
/// claims with one shared RSA-2048 `SigningKey`, on every core at once, as the token endpoint's
/// epoll threads sign.
///
/// Why beside `openssl speed rsa2048`: that one times OpenSSL's low-level `RSA_sign` of a bare
/// digest on one core, while the server builds the header and payload, hashes them and signs
/// through `EVP_DigestSign`; a ceiling the server's own path cannot reach would understate every
/// ratio against it. Like `openssl speed` (without `-elapsed`), it counts CPU time, each
/// thread's own, so other processes on a shared machine do not lower it.
enum SigningCeiling {
    /// Signatures per CPU-second of one thread, averaged over `threads` threads signing for
    /// `seconds` of wall time each.
    static func signsPerCoreSecond(threads: Int, seconds: Double) throws -> Double {
        let key = try SigningKey.generate(.rs256)
        let claims = idTokenClaims()
        let results = Mutex([Double](repeating: 0, count: threads))
        DispatchQueue.concurrentPerform(iterations: threads) { index in
            let deadline = Date().addingTimeInterval(seconds)
            let start = threadCPUSeconds()
            var count = 0
            while Date() < deadline {
                for _ in 0..<8 { _ = JWS.sign(claims: claims, key: key, type: "JWT") }
                count += 8
            }
            let cpu = threadCPUSeconds() - start
            results.withLock { $0[index] = cpu > 0 ? Double(count) / cpu : 0 }
        }
        return results.withLock { $0.reduce(0, +) } / Double(max(threads, 1))
    }

    /// Claims the size of a Native SSO exchange's ID token (about 500 bytes).
    private static func idTokenClaims() -> JWTClaims {
        let now = Date()
        var claims = JWTClaims(
            issuer: "http://127.0.0.1:18090", subject: "usr_8f3a2c1e9b7d4f60a5c2", audience: ["cli_4d2b9e7a1f3c"],
            expiresAt: now.addingTimeInterval(3600), issuedAt: now)
        claims["auth_time"] = .integer(Int64(now.timeIntervalSince1970) - 120)
        claims["amr"] = ["pwd"]
        claims["name"] = "Bench Person 0042"
        claims["sid"] = .string(SecureRandom.token(bits: 128))
        claims["ds_hash"] = .string(SecureRandom.token(bits: 128))
        claims["at_hash"] = .string(SecureRandom.token(bits: 128))
        return claims
    }

    private static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
