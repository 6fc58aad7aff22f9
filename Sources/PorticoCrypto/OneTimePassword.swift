/// HOTP (RFC 4226) and TOTP (RFC 6238) codes on OpenSSL's HMAC.
///
/// Two-step verification uses TOTP with HMAC-SHA1, 6 digits and 30-second steps: the
/// parameters every authenticator app supports (Google Authenticator ignores any other). The
/// time step is what servers remember to refuse a code twice, so it is exposed on its own.
public struct OneTimePassword: Sendable {
    /// The shared secret.
    public let secret: [UInt8]
    /// How many decimal digits a code has (6 to 8).
    public let digits: Int
    /// The HMAC's digest (SHA-1 for authenticator apps; RFC 6238 also names SHA-256/512).
    public let digest: Digest
    /// The length of one TOTP time step, in seconds.
    public let period: Int64

    /// A generator for `secret`; `digits` is clamped to 6…8.
    public init(secret: [UInt8], digits: Int = 6, digest: Digest = .sha1, period: Int64 = 30) {
        self.secret = secret
        self.digits = min(max(digits, 6), 8)
        self.digest = digest
        self.period = max(period, 1)
    }

    /// The HOTP value for `counter` (RFC 4226 §5.3: HMAC, dynamic truncation, modulo 10^digits),
    /// zero-padded to `digits`.
    public func code(counter: UInt64) -> String {
        var message = [UInt8](repeating: 0, count: 8)
        for index in 0..<8 { message[index] = UInt8(truncatingIfNeeded: counter >> UInt64(56 - 8 * index)) }
        let mac = HMAC.authenticationCode(for: message, key: secret, digest: digest)
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let binary =
            (UInt32(mac[offset] & 0x7F) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8)
            | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let value = String(binary % modulus)
        return String(repeating: "0", count: digits - value.count) + value
    }

    /// The TOTP time step of `unixTime` (RFC 6238 §4.2, T0 = 0); nil before 1970.
    public func step(at unixTime: Int64) -> Int64? {
        unixTime >= 0 ? unixTime / period : nil
    }

    /// The TOTP code for the time step `step`.
    public func code(step: Int64) -> String {
        code(counter: UInt64(max(step, 0)))
    }

    /// The step within `window` steps of `unixTime` whose code is `candidate`, compared in
    /// constant time; nil when none matches. Every step of the window is computed and compared,
    /// so the time taken does not say which (if any) matched.
    public func matchingStep(of candidate: String, at unixTime: Int64, window: Int64 = 1) -> Int64? {
        guard let current = step(at: unixTime), candidate.utf8.count == digits else { return nil }
        var found: Int64?
        for step in (current - window)...(current + window) where step >= 0 {
            if ConstantTime.equals(code(step: step), candidate), found == nil {
                found = step
            }
        }
        return found
    }
}
