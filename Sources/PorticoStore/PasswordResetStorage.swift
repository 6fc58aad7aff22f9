import Foundation

/// Mailed password-reset links, found by hash.
///
/// Part of ``StoreTransaction``; see its "Implementation requirements".
public protocol PasswordResetStorage {
    /// Stores a freshly mailed reset link (only its token's hash).
    func insert(_ reset: PasswordReset) throws
    /// The reset whose plain token is `token`, whatever its state.
    func passwordReset(token: String) throws -> PasswordReset?
    /// Uses up a presented reset token if it is unused and unexpired, in one atomic step, so
    /// that a link changes a password at most once.
    func redeemPasswordReset(token: String, now: Date) throws -> PasswordResetRedemption
    /// Forgets every reset link of a person (after a reset, so older links die too).
    @discardableResult func deletePasswordResets(userID: String) throws -> Int
}
