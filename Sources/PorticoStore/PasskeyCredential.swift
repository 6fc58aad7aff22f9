import Foundation

/// A person's passkey (a WebAuthn public key credential), as the relying party keeps it
/// (WebAuthn Level 3 §7.1 step 27, the "credential record").
///
/// Only public material is stored: the COSE public key, never anything secret. The credential
/// id is unique across all accounts, so a sign-in that presents one finds exactly one person.
public struct PasskeyCredential: Sendable, Hashable {
    /// The credential id the authenticator chose (1–1023 bytes).
    public var credentialID: [UInt8]
    /// Whose it is.
    public var userID: String
    /// The COSE_Key bytes as registered.
    public var publicKey: [UInt8]
    /// The COSE algorithm (-7 ES256, -8 EdDSA, -257 RS256).
    public var algorithm: Int64
    /// The last signature counter accepted.
    public var signCount: Int64
    /// BE: a synced (multi-device) credential; never changes.
    public var backupEligible: Bool
    /// BS: backed up as of the last use.
    public var backedUp: Bool
    /// The person's name for it ("Phone", "Laptop").
    public var name: String
    /// When it was added.
    public var createdAt: Date
    /// When it last signed someone in; nil before the first sign-in.
    public var lastUsedAt: Date?

    /// A credential record.
    public init(
        credentialID: [UInt8], userID: String, publicKey: [UInt8], algorithm: Int64, signCount: Int64,
        backupEligible: Bool, backedUp: Bool, name: String, createdAt: Date, lastUsedAt: Date? = nil
    ) {
        self.credentialID = credentialID
        self.userID = userID
        self.publicKey = publicKey
        self.algorithm = algorithm
        self.signCount = signCount
        self.backupEligible = backupEligible
        self.backedUp = backedUp
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}
