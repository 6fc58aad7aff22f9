/// Where a signing key is in its life.
public enum SigningKeyState: String, Sendable, Hashable, CaseIterable {
    /// May sign (if current) and is published in the JWKS.
    case active
    /// Signs nothing more; stays published until tokens it signed have expired.
    case retired
}
