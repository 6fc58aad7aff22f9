import Foundation
import PorticoStore

/// Refuses the access tokens a person's grant to an app has issued so far, which are listed
/// nowhere (they are self-contained JWTs, and those minted by refreshing are not recorded).
///
/// The remedy of "Remove" in Your Account, also applied when a grant is found compromised: a
/// replayed authorization code, a reused refresh token (RFC 9700 §4.14.2: an attacker may hold
/// the access tokens the stolen refresh token minted), and a password reset (every app of the
/// person: the reset may be the owner taking the account back).
enum GrantRevocation {
    /// What ``revokeGrant(userID:clientID:now:accessTokenLifetime:onlyIfGranted:in:)`` found.
    struct RevokedGrant {
        /// Whether a consent was removed.
        let removedConsent: Bool
        /// How many live refresh families were revoked.
        let refreshFamilies: Int

        /// Whether there was anything to revoke.
        var revokedAnything: Bool { removedConsent || refreshFamilies > 0 }
    }

    /// Ends the person's grant to `clientID`, as Your Account's Remove does: removes the
    /// consent, revokes every refresh family (so no new access token can be minted) and refuses
    /// every access token issued so far (``revokeAccessTokens(userID:clientID:now:accessTokenLifetime:in:)``).
    /// With `onlyIfGranted`, the access tokens are left alone when there was neither a consent
    /// nor a refresh family (a Remove of an app the person never used writes nothing).
    @discardableResult
    static func revokeGrant(
        userID: String, clientID: String, now: Date, accessTokenLifetime: TimeInterval, onlyIfGranted: Bool = false,
        in transaction: any StoreTransaction
    ) throws -> RevokedGrant {
        let revoked = RevokedGrant(
            removedConsent: try transaction.revokeConsent(userID: userID, clientID: clientID),
            refreshFamilies: try transaction.revokeRefreshFamilies(userID: userID, clientID: clientID, now: now))
        if revoked.revokedAnything || !onlyIfGranted {
            try revokeAccessTokens(
                userID: userID, clientID: clientID, now: now, accessTokenLifetime: accessTokenLifetime,
                in: transaction)
        }
        return revoked
    }

    /// Refuses every access token issued to `clientID` for `userID` up to `now`, until the last
    /// of them (at most `accessTokenLifetime` old) has expired anyway, and tells the client if it
    /// hears of sign-outs (``BackChannelLogout``): its sign-in for the person has ended.
    static func revokeAccessTokens(
        userID: String, clientID: String, now: Date, accessTokenLifetime: TimeInterval,
        in transaction: any StoreTransaction
    ) throws {
        try transaction.revokeGrant(
            userID: userID, clientID: clientID, at: now, expiresAt: now.addingTimeInterval(accessTokenLifetime + 60))
        try BackChannelLogout.enqueue(userID: userID, clientIDs: [clientID], sessionID: nil, now: now, in: transaction)
    }

    /// Refuses every access token issued to any app for `userID` up to `now`, and returns how
    /// many apps that covered: those it has a consent or a refresh family with (revoked ones
    /// too, whose last access tokens may still be live).
    @discardableResult
    static func revokeAllAccessTokens(
        userID: String, now: Date, accessTokenLifetime: TimeInterval, in transaction: any StoreTransaction
    ) throws -> Int {
        var clients = Set(try transaction.consents(userID: userID).map(\.clientID))
        clients.formUnion(try transaction.refreshFamilies(userID: userID, includeRevoked: true).map(\.clientID))
        for clientID in clients.sorted() {
            try revokeAccessTokens(
                userID: userID, clientID: clientID, now: now, accessTokenLifetime: accessTokenLifetime,
                in: transaction)
        }
        return clients.count
    }
}
