/// Names one grant in a ``TokenStore``: a provider and a client of it.
public struct TokenStoreKey: Sendable, Hashable, CustomStringConvertible {
    /// The provider's issuer (or its authorization endpoint when it has no issuer).
    public let provider: String
    /// The app's client id at that provider.
    public let clientID: String

    /// The key for `clientID` at `provider`.
    public init(provider: String, clientID: String) {
        self.provider = provider
        self.clientID = clientID
    }

    /// A short name safe as a file name or keychain account: base64url of SHA-256 over both
    /// parts, so any issuer URL or client id maps to one fixed-length name.
    public var storageName: String {
        Base64URLCoding.encode(PlatformCrypto.sha256(Array((provider + "\n" + clientID).utf8)))
    }

    /// Provider and client.
    public var description: String { "\(clientID) at \(provider)" }
}
