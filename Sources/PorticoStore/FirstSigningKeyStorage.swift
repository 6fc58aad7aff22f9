import Foundation

/// Making the first signing key of an algorithm when several nodes may be doing it at once.
///
/// Part of ``StoreTransaction``; see its "Implementation requirements".
public protocol FirstSigningKeyStorage {
    /// Stores `key` (active, current) as the current key of its algorithm only if the algorithm
    /// has no current key, counting one that a concurrent transaction inserted and has not yet
    /// committed (the backend waits for that transaction's outcome); returns whether it did.
    ///
    /// Unlike ``SigningKeyStorage/insert(_:)``, which replaces the current key (a rotation), this
    /// never demotes one: of nodes starting at once on an empty database, each making its own
    /// keys, exactly one key per algorithm is stored, and the others find it on their next read.
    func insertSigningKeyIfNoneCurrent(_ key: StoredSigningKey) throws -> Bool
}
