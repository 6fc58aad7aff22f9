import Foundation
import PorticoStore

/// Closing an account for good, the one path both an operator's `portico user remove` and a
/// person's own "Close your account" take, inside the caller's transaction, so that every
/// part happens or none does.
///
/// In order: apps with a back-channel logout URI are told every sign-in ended; apps with a
/// Shared Signals stream hear RISC `account-purged` (before the consents that address them
/// go); live refresh-token families are revoked; then the account row is deleted, which takes
/// with it (foreign keys, `ON DELETE CASCADE`) the personal data (name, address, postal code,
/// password hash), browser sessions and their recorded sign-in methods, consents, refresh
/// families, codes, pending device logins, Native SSO device sessions, companion sessions,
/// account links, pairwise subjects, two-step enrollment and recovery codes, and passkeys
/// with their user handle. Access tokens already issued stop working at userinfo and
/// introspection at once, because both look the account up.
///
/// The audit log is append-only and stays: its rows name the account only by its random id.
/// The closing row carries counts, never an address or a name.
enum AccountClosure {
    /// What closing an account took with it.
    struct Outcome: Sendable, Equatable {
        /// Browser sessions ended.
        let sessions: Int
        /// Live refresh-token families revoked (and deleted).
        let refreshFamilies: Int
        /// Apps whose consent was withdrawn.
        let consents: Int
    }

    /// Closes the account `userID` in `transaction`, writing the audit row `action` by
    /// `actor`; nil when there is no such account (nothing is written).
    static func close(
        userID: String, actor: String, action: String, now: Date, in transaction: any StoreTransaction
    ) throws -> Outcome? {
        guard try transaction.user(id: userID) != nil else { return nil }
        let sessions = try transaction.sessions(userID: userID).count
        let consents = try transaction.consents(userID: userID).count
        let families = try transaction.refreshFamilies(userID: userID, includeRevoked: false)
        try BackChannelLogout.enqueueForEveryClient(userID: userID, now: now, in: transaction)
        // The account closes for good: RISC account-purged, before its consents go.
        try SignalAnnouncement.announce([.accountPurged()], userID: userID, now: now, in: transaction)
        for family in families { try transaction.revokeRefreshFamily(id: family.id, now: now) }
        guard try transaction.deleteUser(id: userID) else { return nil }
        let outcome = Outcome(sessions: sessions, refreshFamilies: families.count, consents: consents)
        try transaction.append(
            AuditEvent(
                occurredAt: now, actor: actor, action: action, subject: userID,
                details: #"{"sessions":\#(sessions),"refresh_families":\#(families.count),"consents":\#(consents)}"#
            ))
        return outcome
    }
}
