/// Whether a client can keep a secret (OAuth 2.1 §2.1).
public enum ClientType: String, Sendable, Hashable, CaseIterable {
    /// Runs on a device the user controls (native app, single-page app): no secret, PKCE only.
    case `public`
    /// Runs on a server: authenticates with a secret at the token endpoint.
    case confidential
}
