import PorticoCrypto
import PorticoStore

/// The short code a person types to approve a device login (RFC 8628 §6.1).
///
/// Eight letters from an alphabet without vowels (no accidental words) and without letters
/// that look like digits or each other (no A, E, I, O, U, Y): 20⁸ ≈ 2.6 × 10¹⁰ codes, which
/// with the ten-minute lifetime and the per-address throttle on `/device` leaves guessing a
/// live code hopeless. Shown as `XXXX-XXXX`; typed in any case, with or without the dash
/// (``DeviceAuthorization/normalizedUserCode(_:)`` strips everything but letters and digits).
enum UserCode {
    /// The letters codes are made of.
    static let alphabet = Array("BCDFGHJKLMNPQRSTVWXZ")
    /// How many letters a code has.
    static let length = 8

    /// A fresh random code, unformatted (`WDJBMJHT`).
    static func generate() -> String {
        // 256 is not a multiple of 20: bytes from 240 up are dropped so every letter is
        // equally likely.
        var letters: [Character] = []
        while letters.count < length {
            for byte in SecureRandom.bytes(count: 16) where Int(byte) < 240 && letters.count < length {
                letters.append(alphabet[Int(byte) % alphabet.count])
            }
        }
        return String(letters)
    }

    /// `code` as people read it: `WDJB-MJHT` (normalized first, so any input is accepted).
    static func formatted(_ code: String) -> String {
        let normalized = DeviceAuthorization.normalizedUserCode(code)
        guard normalized.count == length else { return normalized }
        return String(normalized.prefix(length / 2)) + "-" + String(normalized.suffix(length / 2))
    }
}
