import Foundation
import PorticoCrypto

/// Server nonces for DPoP proofs (RFC 9449 §8) that any node can check without a store read.
///
/// A nonce is the number of the current period (``period`` seconds) and a keyed hash of it
/// under a secret every node derives alike from the key file
/// (``KeyRing/derivedSecret(purpose:)``): a node checks one by recomputing the hash, so a nonce
/// one node hands out is good on every other, nothing is stored, and a nonce cannot be made
/// without the key file. A nonce of the current or the previous period is accepted, so one
/// lives between one and two periods; a client told `use_dpop_nonce` gets the current one in
/// the `DPoP-Nonce` header.
struct DPoPNonces: Sendable {
    /// How long one nonce is handed out.
    static let period: TimeInterval = 60
    /// The secret behind the hashes.
    private let secret: [UInt8]

    /// Nonces keyed with `secret`.
    init(secret: [UInt8]) {
        self.secret = secret
    }

    /// The nonce to hand out at `now`.
    func current(at now: Date) -> String {
        nonce(forPeriod: Self.periodNumber(of: now))
    }

    /// Whether `nonce` is this provider's, of the period of `now` or the one before.
    func accepts(_ nonce: String, at now: Date) -> Bool {
        let period = Self.periodNumber(of: now)
        return [period, period - 1].contains { ConstantTime.equals(self.nonce(forPeriod: $0), nonce) }
    }

    private static func periodNumber(of date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / period).rounded(.down))
    }

    private func nonce(forPeriod period: Int64) -> String {
        let number = withUnsafeBytes(of: period.bigEndian) { Array($0) }
        let code = HMAC.authenticationCode(for: number, key: secret)
        return Base64URL.encode(number + code.prefix(16))
    }
}
