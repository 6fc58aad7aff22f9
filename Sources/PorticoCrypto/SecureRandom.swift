import COpenSSL
import Foundation

/// Cryptographically secure random bytes and tokens from OpenSSL's `RAND_bytes`.
public enum SecureRandom {
    /// `count` random bytes.
    public static func bytes(count: Int) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return output }
        let ok = output.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32($0.count)) }
        // A failing system RNG must stop the process rather than hand out guessable secrets.
        precondition(ok == 1, "RAND_bytes failed: no secure randomness available")
        return output
    }

    /// A URL-safe token of `bits` bits of entropy (default 256), base64url without padding.
    ///
    /// Codes, refresh tokens, session ids and client secrets are all made here, so every one
    /// carries the 256 bits the DESIGN asks for.
    public static func token(bits: Int = 256) -> String {
        Base64URL.encode(bytes(count: (bits + 7) / 8))
    }
}

/// Comparison of secrets in constant time.
public enum ConstantTime {
    /// Whether `a` and `b` are equal, taking time that depends only on their lengths.
    ///
    /// Use it for every comparison of a presented secret with a stored one (hashes included),
    /// so that response timing does not reveal how many leading bytes matched.
    public static func equals<A: ContiguousBytes, B: ContiguousBytes>(_ a: A, _ b: B) -> Bool {
        a.withUnsafeBytes { left in
            b.withUnsafeBytes { right in
                guard left.count == right.count else { return false }
                guard left.count > 0 else { return true }
                return CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0
            }
        }
    }

    /// Whether two strings' UTF-8 bytes are equal, in constant time.
    public static func equals(_ a: String, _ b: String) -> Bool {
        equals(Array(a.utf8), Array(b.utf8))
    }
}
