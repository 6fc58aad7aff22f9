import Foundation

/// Deleting what has expired, in bounded slices.
///
/// Part of ``StoreTransaction``; see its "Implementation requirements".
public protocol PurgeStorage {
    /// Deletes what has expired as of `now`: codes, sessions, device authorizations,
    /// revocations of expired access tokens, refresh families a day past their token's expiry
    /// or their revocation (a slice of the table per call, so that a purge stays short however
    /// many there are), hashes of pre-upgrade refresh tokens a day past expiry, password-reset
    /// links, throttled attempts that no longer count, and Native SSO device sessions whose
    /// refresh families are all gone (or that were revoked) a day ago, and pending sign-ups past
    /// their link's expiry.
    @discardableResult func purgeExpired(now: Date) throws -> PurgeReport
}
