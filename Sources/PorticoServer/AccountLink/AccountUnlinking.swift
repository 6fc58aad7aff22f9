import Foundation
import PorticoCrypto
import PorticoStore

/// Unbinding an account link: what happens when the host `DELETE`s a link or the person
/// presses Unlink in Your Account, the same either way.
///
/// Inside the caller's transaction, so that it all happens or none of it:
///
/// - the link row goes (a conditional delete: of two unbinds racing, one does the rest);
/// - the person's grant to the host is revoked the way Your Account's Remove revokes a grant:
///   the consent, every refresh family (so no new access token can be minted), and every
///   access token issued so far (``GrantRevocation``);
/// - so is the person's grant to each of the host's mini-programs: their delegated access
///   tokens were exchanged from the host's, and are refused from now on (by the revocation and
///   because ``DelegatedAccess`` finds no link any more);
/// - the audit log records who unbound it.
enum AccountUnlinking {
    /// Who asked for the unbind, for the audit log.
    enum Initiator {
        /// The host app's backend (`DELETE /oauth/account-links/{link_id}`).
        case host
        /// The person, in Your Account.
        case person
    }

    /// Unbinds `link`; false when it was already gone (then nothing else is done).
    @discardableResult
    static func unbind(
        _ link: AccountLink, by initiator: Initiator, now: Date, accessTokenLifetime: TimeInterval,
        in transaction: any StoreTransaction
    ) throws -> Bool {
        guard try transaction.deleteAccountLink(id: link.id) else { return false }
        let userID = link.platformUserID
        let clients =
            [link.hostClientID] + (try transaction.miniPrograms(hostClientID: link.hostClientID).map(\.clientID))
        try SignalAnnouncement.announce(
            [.sessionRevoked(reason: "account link unbound")], userID: userID, clientIDs: clients, now: now,
            in: transaction)
        var families = 0
        for clientID in clients {
            families +=
                try GrantRevocation.revokeGrant(
                    userID: userID, clientID: clientID, now: now, accessTokenLifetime: accessTokenLifetime,
                    in: transaction
                ).refreshFamilies
        }
        let details: JSONValue = [
            "link_id": .string(link.id), "user_id": .string(userID), "host_client_id": .string(link.hostClientID),
            "mini_programs": .integer(Int64(clients.count - 1)), "refresh_families": .integer(Int64(families)),
        ]
        try transaction.append(
            AuditEvent(
                occurredAt: now, actor: initiator == .host ? link.hostClientID : userID, action: "account_link.unbind",
                subject: link.hostClientID, details: details.jsonString))
        return true
    }
}
