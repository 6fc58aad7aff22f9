import PorticoCrypto

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
/// Bounded like ``EmbeddedKeyCache`` (``BoundedCache``); a key the import refuses is not cached.
public typealias PasskeyKeyCache = BoundedCache<[UInt8], COSEKey>

extension BoundedCache where Key == [UInt8], Value == COSEKey {
    /// The key whose COSE_Key encoding is `cbor`: the cached one, or a fresh import (then cached).
    public func key(cbor: [UInt8]) throws(PasskeyError) -> COSEKey {
        try value(for: cbor) { () throws(PasskeyError) in try COSEKey(cbor: cbor) }
    }
}
