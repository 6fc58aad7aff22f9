/// Thrown by a host app's account-link closure when the provider refused the host backend's
/// token exchange with `use_dpop_nonce` (RFC 9449 §8): the backend hands back the provider's
/// `DPoP-Nonce`, and ``AccountLinkSession`` signs a new ``AccountLinkProof`` carrying it and
/// runs the closure once more (with the same authorization result).
///
/// Only the device can sign, so the nonce has to come back to it; the backend must then take the
/// same code again without redeeming it twice (the example backend remembers the codes it
/// redeemed for a few minutes and goes straight to the exchange).
public struct DPoPNonceRequired: Error, Sendable, Hashable {
    /// The provider's nonce, from its `DPoP-Nonce` header.
    public let nonce: String

    /// The provider wants `nonce` in the next proof.
    public init(nonce: String) {
        self.nonce = nonce
    }
}
