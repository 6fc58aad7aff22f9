import Foundation

/// The `jti`s of `private_key_jwt` client assertions (RFC 7523 §3) already presented, so that
/// each assertion authenticates its client once: one overheard on the way cannot be replayed
/// while it is still unexpired.
///
/// Part of ``StoreTransaction``; see its "Implementation requirements".
public protocol ClientAssertionStorage {
    /// Records that `clientID` presented an assertion with `jti`, remembered until `expiresAt`;
    /// returns false, writing nothing, when the same client's `jti` is already recorded and not
    /// expired at `now` (a replay). Only a hash of `jti` is kept. Conditional: of two racing
    /// calls with one `jti`, exactly one returns true. Records expired at `now` are dropped.
    func recordClientAssertion(clientID: String, jti: String, expiresAt: Date, now: Date) throws -> Bool
}
