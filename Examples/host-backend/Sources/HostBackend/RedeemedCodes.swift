import Foundation
import PorticoCrypto
import Synchronization

/// The authorization codes the backend redeemed lately, by hash, and for which host user.
///
/// When the provider wants a DPoP nonce for the mini-program exchange, only the host app can
/// sign the new proof, so the app sends the same code again with it. Redeeming a code twice
/// fails (and a provider may revoke what it issued on the replay), so a code redeemed for the
/// same host user within ``lifetime`` skips redemption and linking and goes straight to the
/// exchange. Only hashes are kept, and only for minutes.
public final class RedeemedCodes: Sendable {
    /// How long a redeemed code is remembered.
    public let lifetime: TimeInterval
    private let entries = Mutex<[String: (hostUserID: String, until: Date)]>([:])

    /// A memory of codes kept for `lifetime` seconds (five minutes).
    public init(lifetime: TimeInterval = 300) {
        self.lifetime = lifetime
    }

    /// Remembers that `code` was redeemed for `hostUserID`.
    func remember(_ code: String, for hostUserID: String, now: Date = Date()) {
        let key = Self.key(code)
        entries.withLock { table in
            table = table.filter { $0.value.until > now }
            table[key] = (hostUserID, now.addingTimeInterval(lifetime))
        }
    }

    /// Whether `code` was redeemed for `hostUserID` within the lifetime.
    func wasRedeemed(_ code: String, for hostUserID: String, now: Date = Date()) -> Bool {
        let key = Self.key(code)
        return entries.withLock { table in
            guard let entry = table[key], entry.until > now else { return false }
            return entry.hostUserID == hostUserID
        }
    }

    private static func key(_ code: String) -> String {
        Base64URL.encode(Digest.sha256.hash(code))
    }
}
