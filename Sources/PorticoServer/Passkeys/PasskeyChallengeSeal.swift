import Foundation
import PorticoCrypto

/// Sign-in challenges that need no store until they are used: 32 random bytes, the expiry
/// (whole seconds since 1970, 8 bytes big-endian) and the first 16 bytes of an HMAC-SHA256 of
/// both under a secret every node derives alike from the key file, 56 bytes in all.
///
/// Why: the options request of a passkey sign-in stored its challenge, a write transaction of
/// its own in every ceremony (and one that anybody could make without signing in). A sealed
/// challenge proves that this provider made it and until when it holds. Single use stays in the
/// store: the sign-in records the challenge's hash (``PasskeyStorage/claimPasskeyChallenge(_:now:)``)
/// in the transaction that counts its attempt, and a second use finds it recorded, on any node.
struct PasskeyChallengeSeal: Sendable {
    /// The random part, as long as the stored challenges were.
    static let randomLength = 32
    /// How much of the HMAC is kept.
    static let tagLength = 16
    /// The whole challenge.
    static let length = randomLength + 8 + tagLength

    private let secret: [UInt8]

    /// Seals with `secret` (``KeyRing/derivedSecret(purpose:)``).
    init(secret: [UInt8]) {
        self.secret = secret
    }

    /// A new challenge that holds until `expiresAt`.
    func make(expiresAt: Date) -> [UInt8] {
        let seconds = Int64(expiresAt.timeIntervalSince1970.rounded(.down))
        let body = SecureRandom.bytes(count: Self.randomLength) + withUnsafeBytes(of: seconds.bigEndian) { Array($0) }
        return body + tag(of: body)
    }

    /// When `challenge` expires, if this provider sealed it and it still holds at `now`; nil
    /// otherwise.
    func expiry(of challenge: [UInt8], now: Date) -> Date? {
        guard challenge.count == Self.length else { return nil }
        let body = Array(challenge.prefix(Self.randomLength + 8))
        guard ConstantTime.equals(tag(of: body), Array(challenge.suffix(Self.tagLength))) else { return nil }
        let seconds = body.suffix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
        let expiresAt = Date(timeIntervalSince1970: TimeInterval(seconds))
        return expiresAt > now ? expiresAt : nil
    }

    private func tag(of body: [UInt8]) -> [UInt8] {
        Array(HMAC.authenticationCode(for: body, key: secret).prefix(Self.tagLength))
    }
}
