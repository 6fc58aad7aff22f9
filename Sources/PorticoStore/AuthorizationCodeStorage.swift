import Foundation

/// Authorization codes: single-use, short-lived, found by hash.
///
/// Part of ``StoreTransaction``; see its "Implementation requirements".
public protocol AuthorizationCodeStorage {
    /// Stores a freshly issued code.
    func insert(_ code: AuthorizationCode) throws
    /// The code as stored, whatever its state, without redeeming it.
    func authorizationCode(_ code: String) throws -> AuthorizationCode?
    /// Redeems a presented code: consumes it if it is unused and unexpired, in one atomic step
    /// (a conditional update on "not consumed yet"; a redemption whose update changed no row is
    /// ``CodeRedemption/alreadyUsed(_:)``), so that two concurrent token requests cannot both
    /// succeed. What a replay revokes is the provider's decision.
    func redeemAuthorizationCode(_ code: String, now: Date) throws -> CodeRedemption
    /// Records what a redeemed code issued, so that a replay can revoke it.
    func recordIssuance(
        forCode hashedCode: String, refreshFamilyID: String?, accessTokenID: String?, accessTokenExpiresAt: Date?
    ) throws
    /// Forgets what a redeemed code issued, conditionally on something being recorded, and says
    /// whether this call forgot it: of any number of replays of a code, sequential or
    /// concurrent, exactly one gets true, so the provider revokes (and tells the client) once
    /// per code however often it is replayed. The code stays consumed, so replays are still
    /// recognised as such.
    func forgetIssuance(forCode hashedCode: String) throws -> Bool
}
