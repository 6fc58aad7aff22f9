import PorticoCrypto

/// A credential that passed every registration check of WebAuthn Level 3 §7.1, ready to store.
public struct PasskeyRegistration: Sendable, Equatable {
    /// The credential id (at most 1023 bytes).
    public var credentialID: [UInt8]
    /// The COSE_Key bytes, as the authenticator wrote them; assertions re-import them.
    public var publicKey: [UInt8]
    /// ES256, EdDSA or RS256.
    public var algorithm: COSEAlgorithm
    /// The signature counter at registration.
    public var signCount: UInt32
    /// BE: a multi-device ("synced") credential; fixed for the credential's life.
    public var backupEligible: Bool
    /// BS: backed up now.
    public var backedUp: Bool
    /// The authenticator model (zeros under `none` conveyance).
    public var aaguid: [UInt8]
    /// `none` or `packed`.
    public var attestationFormat: String
}
