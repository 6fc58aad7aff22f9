import PorticoCrypto
import Synchronization

/// The imported public keys of recently used passkeys, by their stored COSE_Key bytes.
///
/// Why: turning a credential's COSE_Key into an OpenSSL key (CBOR decoding, the point's import
/// and its on-curve check) cost more than the ES256 verification itself in a passkey sign-in's
/// profile, and it is the same work every time the same passkey signs in. Identical COSE bytes
/// are an identical key, so the key is looked up by the bytes the store returned for the
/// credential, never by the credential id: a removed or replaced credential is not found in the
/// store first, and a key that differs by one byte is another entry. Every assertion still gets
/// its own signature check.
///
/// Bounded like ``EmbeddedKeyCache``: past ``capacity`` distinct keys the cache starts again
/// empty. Shared by the threads of a node; the lock is held only for a lookup or an insert,
/// never while a key is imported. A key the import refuses is not cached.
public final class PasskeyKeyCache: Sendable {
    /// How many distinct keys are kept before the cache is emptied.
    public let capacity: Int
    private let keys = Mutex<[[UInt8]: COSEKey]>([:])

    /// An empty cache that keeps at most `capacity` keys.
    public init(capacity: Int = 4096) {
        self.capacity = max(1, capacity)
    }

    /// How many keys are cached now.
    public var count: Int {
        keys.withLock { $0.count }
    }

    /// The key whose COSE_Key encoding is `cbor`: the cached one, or a fresh import (then cached).
    public func key(cbor: [UInt8]) throws(PasskeyError) -> COSEKey {
        if let cached = keys.withLock({ $0[cbor] }) { return cached }
        let key = try COSEKey(cbor: cbor)
        keys.withLock { cache in
            if cache.count >= capacity { cache.removeAll(keepingCapacity: true) }
            cache[cbor] = key
        }
        return key
    }
}
