import Foundation

/// A ``TokenStore`` that forgets everything when the process ends: for tests, previews, and
/// apps that want the person to sign in on every start.
public final class InMemoryTokenStore: TokenStore {
    private let grants = LockedState<[TokenStoreKey: StoredGrant]>([:])
    private let identity = UUID().uuidString

    /// An empty store.
    public init() {}

    /// The stored grant, if any.
    public func grant(for key: TokenStoreKey) throws -> StoredGrant? {
        grants.withLock { $0[key] }
    }

    /// Stores `grant`.
    public func save(_ grant: StoredGrant, for key: TokenStoreKey) throws {
        grants.withLock { $0[key] = grant }
    }

    /// Removes the grant.
    public func removeGrant(for key: TokenStoreKey) throws {
        _ = grants.withLock { $0.removeValue(forKey: key) }
    }

    /// Unique to this instance: two in-memory stores never share grants.
    public var coordinationKey: String { "memory:" + identity }
}
