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
    ///
    /// Times are whole seconds, so a removal records the second *after* the one already
    /// recorded when that is at or past `time`'s second: a token issued after the earlier
    /// removal is stamped past it (``grantRevocationTime(userID:clientID:)``), and this removal
    /// must still catch it. Recorded removals so only move forward.
    func revokeGrant(userID: String, clientID: String, at time: Date, expiresAt: Date) throws
    /// The time of the last recorded removal of `clientID` by `userID`, in whole seconds; nil
    /// when none is remembered. A token issued now for that grant is stamped after it, so that
    /// a removal in the same second as a new sign-in does not kill the sign-in's tokens.
    func grantRevocationTime(userID: String, clientID: String) throws -> Date?
    /// Whether the access token `id`, issued at `issuedAt` to `clientID` for `userID`, has been
    /// revoked: by itself, by a removal of the app at or after `issuedAt`, or because the client
    /// is suspended or no longer exists (deleted in the console, `client remove`, RFC 7592).
    /// One lookup.
    func isAccessTokenRevoked(id: String, userID: String, clientID: String, issuedAt: Date) throws -> Bool
}
