import Foundation

/// Revoked access tokens and removed apps, until the tokens they concern expire.
///
/// Part of ``StoreTransaction``; see its "Implementation requirements".
public protocol AccessTokenRevocationStorage {
    /// Remembers that the access token `id` (its `jti`) is revoked until it expires.
    func revokeAccessToken(id: String, expiresAt: Date) throws
    /// Whether the access token `id` has been revoked.
    func isAccessTokenRevoked(id: String) throws -> Bool
    /// Remembers that `userID` removed `clientID` at `time`, until `expiresAt` (when every
    /// access token issued before it has expired); a later removal replaces an earlier one.
    func revokeGrant(userID: String, clientID: String, at time: Date, expiresAt: Date) throws
    /// Whether the access token `id`, issued at `issuedAt` to `clientID` for `userID`, has been
    /// revoked: by itself, or by a removal of the app at or after `issuedAt`. One lookup.
    func isAccessTokenRevoked(id: String, userID: String, clientID: String, issuedAt: Date) throws -> Bool
}
