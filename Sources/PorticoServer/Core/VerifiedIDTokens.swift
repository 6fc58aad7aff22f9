import PorticoCrypto
import Synchronization

/// The ID tokens whose signature this provider has verified, by their exact text, for the Native
/// SSO exchange (``NativeSSOExchange``).
///
/// Why: every app of an SSO group presents the same ID token of the first app, and an app may
/// repeat the exchange (it lost its tokens, it was reinstalled), while an RS256 verification and
/// the parsing around it cost a tenth of the exchange. What is kept is only what is immutable
/// about a token — that its signature verified with the keys of a ``KeyRing/generation`` — and
/// its claims; an entry counts only while the ring's keys are still that generation, so a
/// revoked or retired key takes its tokens' entries with it. Nothing else is cached: the device
/// secret, the session, `ds_hash`, the group and the consent are checked on every exchange, and a
/// token that differs in any byte is verified on its own.
final class VerifiedIDTokens: Sendable {
    /// The most tokens remembered at once (about 2 KiB each); when full, entries of older keys
    /// go first, then everything.
    let capacity: Int
    private let entries = Mutex([String: (claims: JWTClaims, keys: Int)]())

    /// An empty cache of at most `capacity` tokens.
    init(capacity: Int = 4096) {
        self.capacity = capacity
    }

    /// The claims of `token` if it verified with the keys of `generation`, which must still be
    /// the current one.
    func claims(of token: String, generation: Int) -> JWTClaims? {
        entries.withLock { entries in
            guard let entry = entries[token], entry.keys == generation else { return nil }
            return entry.claims
        }
    }

    /// Remembers that `token`, whose claims are `claims`, verified with the keys of `generation`.
    func remember(_ claims: JWTClaims, of token: String, generation: Int) {
        entries.withLock { entries in
            if entries.count >= capacity {
                entries = entries.filter { $0.value.keys == generation }
                if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            }
            entries[token] = (claims, generation)
        }
    }

    /// How many tokens are remembered (for tests).
    var count: Int {
        entries.withLock { $0.count }
    }
}
