import Foundation

/// A DPoP proof (RFC 9449) that the host backend sends with its token-exchange request for a
/// mini-program's token, so that the provider binds that token to the host app's installation
/// key (`token_type` `DPoP`, `cnf.jkt` = ``thumbprint``).
///
/// RFC 9449 lets any party present a proof; what matters is who holds the key. The backend
/// never does: it only forwards ``value`` as the `DPoP` header of that one request, so a
/// mini-program token copied out of the container, a log or the backend is useless without the
/// device. The host's own tokens (its code redemption and refreshes) stay unbound: they never
/// leave the backend, and binding them to a device key would stop the backend refreshing
/// without the device.
///
/// A proof names `POST` at the provider's token endpoint at one moment (fresh `jti`, `iat`, and
/// the provider's latest nonce when one is known): use it for one request, soon. When the
/// provider answers `use_dpop_nonce`, the backend hands its `DPoP-Nonce` back and the host's
/// closure throws ``DPoPNonceRequired``: ``AccountLinkSession`` signs a new proof with it and
/// asks once more.
public struct AccountLinkProof: Sendable, Hashable, CustomStringConvertible {
    /// The proof, a compact JWS of `typ` `dpop+jwt`: the `DPoP` header's value.
    public let value: String
    /// The RFC 7638 thumbprint of the key that signed it: the token's `cnf.jkt` once bound.
    public let thumbprint: String
    /// The URL the proof names (`htu`): the provider's token endpoint.
    public let tokenEndpoint: URL

    /// A proof with these values.
    public init(value: String, thumbprint: String, tokenEndpoint: URL) {
        self.value = value
        self.thumbprint = thumbprint
        self.tokenEndpoint = tokenEndpoint
    }

    /// The key and endpoint; the proof itself is redacted (it grants a token for a minute).
    public var description: String {
        "AccountLinkProof(thumbprint: \(thumbprint), tokenEndpoint: \(tokenEndpoint), value: <redacted>)"
    }
}

extension AuthorizationManager {
    /// A proof of the installation's key for the host backend's token exchange, or nil when the
    /// provider does not advertise DPoP (ES256) or the app turned it off: then the backend's
    /// exchange stays bearer, as before.
    func accountLinkProof() throws(AuthorizationError) -> AccountLinkProof? {
        guard let key = try dpopKeyForNewGrant() else { return nil }
        let endpoint = provider.tokenEndpoint
        let proof = try DPoPProofBuilder.proof(
            key: key, method: "POST", url: endpoint, nonce: DPoPNonceBook.nonce(for: endpoint), accessToken: nil,
            now: now())
        return AccountLinkProof(value: proof, thumbprint: key.thumbprint, tokenEndpoint: endpoint)
    }
}
