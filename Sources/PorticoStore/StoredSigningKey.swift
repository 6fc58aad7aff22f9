import Foundation

/// A private key with which the provider signs tokens, as the store keeps it (PEM and state);
/// `PorticoCrypto.SigningKey` is the loaded key that signs.
///
/// Keys live in the database rather than in files so that every node of a cluster signs with,
/// and publishes, the same keys. At most one active key per algorithm is the current signer.
public struct StoredSigningKey: Sendable, Hashable {
    /// The `kid` that JWS headers and the JWKS carry.
    public var id: String
    /// The JWS algorithm (`RS256`, `ES256`, `EdDSA`, `PS256`).
    public var algorithm: String
    /// The private key in PEM (PKCS #8).
    public var privateKeyPEM: String
    /// Active or retired.
    public var state: SigningKeyState
    /// Whether this key is the one that signs new tokens of its algorithm.
    public var isCurrent: Bool
    /// When the key was made.
    public var createdAt: Date
    /// When it was retired; nil while active.
    public var retiredAt: Date?
    /// When a key added by a rotation may start signing: it is published first, so that every
    /// cached JWKS knows it before any token carries it. Nil for a key that signs at once (the
    /// first start's, a revocation's replacement).
    public var signsFrom: Date? = nil

    /// A key ready to insert; make it the signer with `makeCurrentSigningKey(id:)`.
    public init(
        id: String = RecordIdentifier.random(), algorithm: String, privateKeyPEM: String,
        state: SigningKeyState = .active, isCurrent: Bool = false, createdAt: Date = Date(), retiredAt: Date? = nil,
        signsFrom: Date? = nil
    ) {
        self.id = id
        self.algorithm = algorithm
        self.privateKeyPEM = privateKeyPEM
        self.state = state
        self.isCurrent = isCurrent
        self.createdAt = createdAt
        self.retiredAt = retiredAt
        self.signsFrom = signsFrom
    }
}
