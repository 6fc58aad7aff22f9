/// Where a signing key is in its life.
public enum SigningKeyState: String, Sendable, Hashable, CaseIterable {
    /// Published in the JWKS; signs if it is its algorithm's current key. An active key that is
    /// not current waits for its ``StoredSigningKey/signsFrom`` (`keys list` calls it published).
    case active
    /// Signs nothing more; stays published until tokens it signed have expired.
    case retired
}
