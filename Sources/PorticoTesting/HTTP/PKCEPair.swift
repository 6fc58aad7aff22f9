import PorticoCrypto

/// A PKCE verifier and its S256 challenge, as an app makes them before authorizing.
public struct PKCEPair: Sendable {
    /// The secret the app keeps until it redeems the code.
    public let verifier = PKCE.makeVerifier()
    /// What the authorization request carries.
    public var challenge: String { PKCE.challenge(for: verifier) }

    /// A new random pair.
    public init() {}
}
