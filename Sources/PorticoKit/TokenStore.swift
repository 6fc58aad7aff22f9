/// Where an ``AuthorizationManager`` keeps its grant between runs.
///
/// Implementations must be safe to call from several tasks at once. ``coordinationKey`` tells
/// managers which stores are the same storage, so that managers sharing one store also share
/// one refresh (a refresh token is single use; two refreshes would revoke the family).
public protocol TokenStore: Sendable {
    /// The grant stored under `key`, or nil when there is none.
    func grant(for key: TokenStoreKey) throws -> StoredGrant?
    /// Stores `grant` under `key`, replacing what was there.
    func save(_ grant: StoredGrant, for key: TokenStoreKey) throws
    /// Removes the grant under `key`; removing a missing grant is not an error.
    func removeGrant(for key: TokenStoreKey) throws
    /// Equal for two store values that read and write the same storage (for example the same
    /// directory); different otherwise.
    var coordinationKey: String { get }
}
