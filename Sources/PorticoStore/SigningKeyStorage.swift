import Foundation

/// The keys that sign tokens, shared by every node.
///
/// Part of ``StoreTransaction``; see its "Implementation requirements".
public protocol SigningKeyStorage {
    /// Stores a signing key; if `key.isCurrent`, it replaces the current one of its algorithm.
    func insert(_ key: StoredSigningKey) throws
    /// The key with this `kid`.
    func signingKey(id: String) throws -> StoredSigningKey?
    /// All keys, oldest first: what the JWKS publishes (active and recently retired ones).
    func signingKeys() throws -> [StoredSigningKey]
    /// The key that signs new tokens of `algorithm`.
    func currentSigningKey(algorithm: String) throws -> StoredSigningKey?
    /// Makes an active key the signer of its algorithm, in place of the previous one.
    func makeCurrentSigningKey(id: String) throws
    /// Retires a key: it stops signing (and stops being current) but stays published.
    func retireSigningKey(id: String, at time: Date) throws
    /// Forgets a key, once no unexpired token can carry its signature.
    @discardableResult func deleteSigningKey(id: String) throws -> Bool
}
