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

    /// Runs `refresh` while no other process refreshes the grant under `key`. Managers in
    /// one process already share one refresh; a store that several processes share (a
    /// directory) also locks across them here, so two processes of one app refresh once. The
    /// default runs `refresh` at once.
    func whileRefreshing<T: Sendable>(
        _ key: TokenStoreKey, _ refresh: @Sendable () async throws -> T
    ) async throws -> T

    /// The installation's DPoP key (RFC 9449), made on first use and kept as long as the grants
    /// it binds. The default keeps one key per ``coordinationKey`` in memory for the life of
    /// the process; a store that outlives it keeps the key too (``FileTokenStore``: a `0600`
    /// file; ``KeychainTokenStore``: the Secure Enclave or a Keychain item).
    func dpopKey() throws -> DPoPKey
}

extension TokenStore {
    /// One key per ``coordinationKey``, in memory until the process ends.
    public func dpopKey() throws -> DPoPKey {
        try EphemeralDPoPKeys.key(for: coordinationKey)
    }

    /// Runs `refresh` at once: stores of one process need no lock of their own.
    public func whileRefreshing<T: Sendable>(
        _ key: TokenStoreKey, _ refresh: @Sendable () async throws -> T
    ) async throws -> T {
        try await refresh()
    }
}
