import PorticoCrypto

/// A PKCE verifier and its S256 challenge, as an app makes them before authorizing.
public struct PKCEPair: Sendable {
    public let verifier = PKCE.makeVerifier()
    public var challenge: String { PKCE.challenge(for: verifier) }

    public init() {}
}
