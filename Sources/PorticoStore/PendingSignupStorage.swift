import Foundation

/// Sign-ups waiting for their e-mail address to be confirmed, found by the hash of the mailed
/// token.
///
/// Part of ``StoreTransaction``; see its "Implementation requirements". Expired ones are
/// deleted by ``PurgeStorage/purgeExpired(now:)``.
public protocol PendingSignupStorage {
    /// Stores `signup`, replacing any pending sign-up for the same address in any letter case
    /// (one atomic statement, so two racing sign-ups for one address leave exactly one).
    func savePendingSignup(_ signup: PendingSignup) throws
    /// The pending sign-up whose plain token is `token`, expired or not.
    func pendingSignup(token: String) throws -> PendingSignup?
    /// Takes away the pending sign-up of a presented token, in one atomic step: of two
    /// transactions presenting the same token, exactly one gets ``PendingSignupRedemption/redeemed(_:)``.
    func redeemPendingSignup(token: String, now: Date) throws -> PendingSignupRedemption
}
