import Foundation
import PorticoCrypto
import PorticoStore

/// A person taking away an app's access: "Remove" in Your Account, and FedCM's disconnect
/// (the app's own page asking the provider to forget the person's connection).
///
/// Both end the grant as a whole, not only the remembered consent: an app told to forget a
/// person must not keep minting tokens for them with a refresh token, nor use the access tokens
/// it holds. So the consent and every refresh family go, the access tokens issued so far are
/// refused, a host's account link is unbound (with its mini-programs' tokens), Shared Signals
/// receivers hear `session-revoked`, and the audit log keeps a line.
enum AppRemoval {
    /// Ends `userID`'s grant to `clientID` in `transaction`; `action` names the audit event and
    /// `reason` the signal's. Writes nothing when the person never used the app.
    static func remove(
        clientID: String, userID: String, action: String, reason: String, now: Date,
        accessTokenLifetime: TimeInterval, in transaction: any StoreTransaction
    ) throws {
        // Removing a host app the person is linked at unbinds the link too, which revokes the
        // grants of the host and of its mini-programs (their delegated tokens end with it).
        if let link = try transaction.accountLink(hostClientID: clientID, platformUserID: userID) {
            try AccountUnlinking.unbind(
                link, by: .person, now: now, accessTokenLifetime: accessTokenLifetime, in: transaction)
        }
        // Access tokens are not listed anywhere; every one issued before now is refused until
        // the last of them has expired anyway (and the app's backend told, if it listens).
        let revoked = try GrantRevocation.revokeGrant(
            userID: userID, clientID: clientID, now: now, accessTokenLifetime: accessTokenLifetime,
            onlyIfGranted: true, in: transaction)
        guard revoked.revokedAnything else { return }
        try SignalAnnouncement.announce(
            [.sessionRevoked(reason: reason)], userID: userID, clientIDs: [clientID], now: now, in: transaction)
        try transaction.append(
            AuditEvent(
                occurredAt: now, actor: userID, action: action, subject: clientID,
                details: (["user_id": .string(userID), "refresh_families": .integer(Int64(revoked.refreshFamilies))]
                    as JSONValue).jsonString))
    }
}
