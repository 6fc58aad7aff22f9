import Foundation
import PorticoStore

/// `portico user list | disable | enable | remove`: what an operator does to existing accounts.
///
/// Accounts are named by id or by e-mail address (any letter case). Every change is one
/// transaction with its audit event, and the audit event carries only the user id, never the
/// address or name, so removing an account leaves no personal data behind in the append-only
/// log.
public enum UserAdministration {
    /// What removing an account took with it.
    public struct Removal: Sendable, Equatable {
        /// The removed account's id.
        public let userID: String
        /// Browser sessions ended.
        public let sessions: Int
        /// Live refresh-token families revoked (and deleted).
        public let refreshFamilies: Int
        /// Apps whose consent was withdrawn.
        public let consents: Int
    }

    /// What disabling or enabling changed.
    public struct StatusChange: Sendable, Equatable {
        /// The account as it is now.
        public let user: UserRecord
        /// Whether it was already in the requested state (nothing changed).
        public let unchanged: Bool
        /// Browser sessions ended (disabling signs the person out everywhere).
        public let sessionsEnded: Int
    }

    /// The account whose id or e-mail address is `reference`.
    public static func find(_ reference: String, in store: any Store) throws(AdminError) -> UserRecord {
        do {
            if let user = try store.read({ try $0.user(id: reference) ?? $0.user(email: reference) }) { return user }
        } catch {
            throw AdminError.wrapping(error)
        }
        throw .notFound("no user with id or e-mail address \(reference)")
    }

    /// Up to `limit` accounts, oldest first.
    public static func list(in store: any Store, limit: Int = 10_000) throws(AdminError) -> [UserRecord] {
        do {
            return try store.read { try $0.users(limit: limit) }
        } catch {
            throw AdminError.wrapping(error)
        }
    }

    /// Disables (or, with `disabled: false`, enables) the account named by `reference`.
    ///
    /// A disabled person cannot sign in, their sessions are ended at once, and their refresh
    /// tokens and access tokens are refused while the account stays disabled (the token,
    /// userinfo and introspection endpoints check the account). Refresh-token families are
    /// kept, not revoked, so that enabling the account again undoes a suspension entirely;
    /// `remove` is the way to end everything for good.
    ///
    /// Apps with a Shared Signals stream hear RISC `account-disabled` (with `reason`, RISC's
    /// `hijacking` or `bulk-account`, when given) or `account-enabled`.
    public static func setDisabled(
        _ disabled: Bool, reference: String, reason: String? = nil, in store: any Store, now: Date = Date()
    ) throws(AdminError) -> StatusChange {
        if let reason, !["hijacking", "bulk-account"].contains(reason) {
            throw .invalid("reason '\(reason)' is not hijacking or bulk-account (RISC account-disabled)")
        }
        let found = try find(reference, in: store)
        do {
            return try store.transaction { transaction in
                guard var user = try transaction.user(id: found.id) else {
                    throw AdminError.notFound("no user with id or e-mail address \(reference)")
                }
                guard user.isDisabled != disabled else {
                    return StatusChange(user: user, unchanged: true, sessionsEnded: 0)
                }
                user.isDisabled = disabled
                user.updatedAt = now
                try transaction.update(user)
                let ended = disabled ? try transaction.deleteSessions(userID: user.id) : 0
                if disabled {
                    try NativeSSO.endSessions(userID: user.id, now: now, in: transaction)
                    try BackChannelLogout.enqueueForEveryClient(userID: user.id, now: now, in: transaction)
                }
                try SignalAnnouncement.announce(
                    [disabled ? .accountDisabled(reason: reason) : .accountEnabled()], userID: user.id, now: now,
                    in: transaction)
                try transaction.append(
                    AuditEvent(
                        occurredAt: now, actor: "cli", action: disabled ? "user.disable" : "user.enable",
                        subject: user.id))
                return StatusChange(user: user, unchanged: false, sessionsEnded: ended)
            }
        } catch {
            throw AdminError.wrapping(error)
        }
    }

    /// Removes the account named by `reference` and everything attached to it, as a person's
    /// own "Close your account" does (``AccountClosure``): the personal data, sessions,
    /// consents, refresh-token families (revoked first, then deleted with the account), codes,
    /// pending device logins, account links, two-step verification and passkeys. Access tokens
    /// already issued stop working at userinfo and introspection at once, because both look
    /// the account up.
    public static func remove(_ reference: String, in store: any Store, now: Date = Date()) throws(AdminError)
        -> Removal
    {
        let found = try find(reference, in: store)
        do {
            return try store.transaction { transaction in
                guard
                    let closed = try AccountClosure.close(
                        userID: found.id, actor: "cli", action: "user.remove", now: now, in: transaction)
                else { throw AdminError.notFound("no user with id or e-mail address \(reference)") }
                return Removal(
                    userID: found.id, sessions: closed.sessions, refreshFamilies: closed.refreshFamilies,
                    consents: closed.consents)
            }
        } catch {
            throw AdminError.wrapping(error)
        }
    }
}
