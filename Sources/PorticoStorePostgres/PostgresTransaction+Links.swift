import Foundation
import PorticoStore
import PorticoStoreSQL

// Account links, password resets, throttled attempts, the audit log and purging.
extension PostgresTransaction {
    // MARK: Account links

    private static let linkColumns = "host_client_id, host_user_id, platform_user_id, created_at, id"

    private static func decodeLink(_ row: PostgresRow) throws -> AccountLink {
        AccountLink(
            id: row.text(4), hostClientID: row.text(0), hostUserID: row.text(1), platformUserID: row.text(2),
            createdAt: try row.date(3))
    }

    func insert(_ link: AccountLink) throws {
        try write(
            """
            INSERT INTO account_links (host_client_id, host_user_id, platform_user_id, created_at, id)
            VALUES (?, ?, ?, ?, ?)
            """,
            [
                .text(link.hostClientID), .text(link.hostUserID), .text(link.platformUserID), .date(link.createdAt),
                .text(link.id),
            ],
            referring: "client or user")
    }

    func accountLink(hostClientID: String, hostUserID: String) throws -> AccountLink? {
        try first(
            """
            SELECT \(Self.linkColumns) FROM account_links
            WHERE host_client_id = ? AND host_user_id = ?
            """,
            [.text(hostClientID), .text(hostUserID)], Self.decodeLink)
    }

    func accountLinks(platformUserID: String) throws -> [AccountLink] {
        try all(
            """
            SELECT \(Self.linkColumns) FROM account_links
            WHERE platform_user_id = ? ORDER BY created_at, host_client_id
            """,
            [.text(platformUserID)], Self.decodeLink)
    }

    func deleteAccountLink(hostClientID: String, hostUserID: String) throws -> Bool {
        try write(
            "DELETE FROM account_links WHERE host_client_id = ? AND host_user_id = ?",
            [.text(hostClientID), .text(hostUserID)]) > 0
    }

    func accountLink(id: String) throws -> AccountLink? {
        try first("SELECT \(Self.linkColumns) FROM account_links WHERE id = ?", [.text(id)], Self.decodeLink)
    }

    func accountLink(hostClientID: String, platformUserID: String) throws -> AccountLink? {
        try first(
            "SELECT \(Self.linkColumns) FROM account_links WHERE host_client_id = ? AND platform_user_id = ?",
            [.text(hostClientID), .text(platformUserID)], Self.decodeLink)
    }

    func deleteAccountLink(id: String) throws -> Bool {
        try write("DELETE FROM account_links WHERE id = ?", [.text(id)]) > 0
    }

    // MARK: Password resets

    private static let resetColumns = "token_hash, user_id, created_at, expires_at, used_at"

    private static func decodeReset(_ row: PostgresRow) throws -> PasswordReset {
        PasswordReset(
            hashedToken: try row.hashReference(0), userID: row.text(1), createdAt: try row.date(2),
            expiresAt: try row.date(3), usedAt: try row.optionalDate(4))
    }

    func insert(_ reset: PasswordReset) throws {
        try write(
            "INSERT INTO password_resets (\(Self.resetColumns)) VALUES (?, ?, ?, ?, ?)",
            [
                .hash(reference: reset.hashedToken), .text(reset.userID), .date(reset.createdAt),
                .date(reset.expiresAt), .date(reset.usedAt),
            ], referring: "user")
    }

    func passwordReset(token: String) throws -> PasswordReset? {
        try first(
            "SELECT \(Self.resetColumns) FROM password_resets WHERE token_hash = ?", [.digest(token)],
            Self.decodeReset)
    }

    func redeemPasswordReset(token: String, now: Date) throws -> PasswordResetRedemption {
        let hash = SecretHash.digest(token)
        guard
            var stored = try first(
                "SELECT \(Self.resetColumns) FROM password_resets WHERE token_hash = ?", [.bytes(hash)],
                Self.decodeReset)
        else { return .notFound }
        if stored.usedAt != nil { return .alreadyUsed }
        if StoredTime.isExpired(stored.expiresAt, now: now) { return .expired }
        let changed = try write(
            "UPDATE password_resets SET used_at = ? WHERE token_hash = ? AND used_at IS NULL",
            [.date(now), .bytes(hash)])
        if changed == 0 { return .alreadyUsed }
        stored.usedAt = StoredTime.stored(now)
        return .redeemed(stored)
    }

    func deletePasswordResets(userID: String) throws -> Int {
        try write("DELETE FROM password_resets WHERE user_id = ?", [.text(userID)])
    }

    // MARK: Throttled attempts

    func insert(_ attempt: ThrottleAttempt) throws {
        try write(
            "INSERT INTO throttle_attempts (id, key_hash, attempted_at, expires_at) VALUES (?, ?, ?, ?)",
            [.text(attempt.id), .digest(attempt.key), .date(attempt.attemptedAt), .date(attempt.expiresAt)])
    }

    func throttleAttempts(key: String, since: Date) throws -> [Date] {
        try all(
            "SELECT attempted_at FROM throttle_attempts WHERE key_hash = ? AND attempted_at > ? ORDER BY attempted_at",
            [.digest(key), .date(since)]
        ) { try $0.date(0) }
    }

    func deleteThrottleAttempt(id: String) throws -> Bool {
        try write("DELETE FROM throttle_attempts WHERE id = ?", [.text(id)]) > 0
    }

    func deleteThrottleAttempts(key: String) throws -> Int {
        try write("DELETE FROM throttle_attempts WHERE key_hash = ?", [.digest(key)])
    }

    // MARK: Audit log

    func append(_ event: AuditEvent) throws {
        try write(
            "INSERT INTO audit_log (id, occurred_at, actor, action, subject, details) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .text(event.id), .date(event.occurredAt), .text(event.actor), .text(event.action),
                .text(event.subject), .text(event.details),
            ])
    }

    func recentAuditEvents(limit: Int) throws -> [AuditEvent] {
        try all(
            """
            SELECT id, occurred_at, actor, action, subject, details FROM audit_log
            ORDER BY sequence DESC LIMIT ?
            """,
            [.int(max(0, limit))]
        ) { row in
            AuditEvent(
                id: row.text(0), occurredAt: try row.date(1), actor: row.text(2), action: row.text(3),
                subject: row.text(4), details: row.text(5))
        }
    }

    // MARK: Purging

    /// With several nodes each runs a purger; one batch at a time is enough, and two running the
    /// same deletes at once would only wait on each other's row locks. So a purge first takes a
    /// transaction-scoped advisory lock without waiting: the node that gets it purges, any other
    /// finds it taken and returns an empty report (the lock ends with the transaction, so the
    /// next run of any node may take it).
    func purgeExpired(now: Date) throws -> PurgeReport {
        var report = PurgeReport()
        let won = try first("SELECT pg_try_advisory_xact_lock(?)", [.int(Self.purgeLockKey)]) { try $0.bool(0) }
        guard won == true else { return report }
        report.authorizationCodes = try write(
            """
            DELETE FROM authorization_codes
            WHERE (consumed_at IS NULL AND expires_at <= ?) OR expires_at <= ?
            """,
            [.date(now), .date(now.addingTimeInterval(-Self.consumedCodeRetention))])
        report.sessions = try write("DELETE FROM browser_sessions WHERE expires_at <= ?", [.date(now)])
        report.deviceAuthorizations = try write("DELETE FROM device_authorizations WHERE expires_at <= ?", [.date(now)])
        report.accessTokenRevocations = try write(
            "DELETE FROM access_token_revocations WHERE expires_at <= ?", [.date(now)])
        report.refreshTokens = try write(
            "DELETE FROM legacy_refresh_tokens WHERE expires_at <= ?",
            [.date(now.addingTimeInterval(-Self.refreshRetention))])
        report.refreshFamilies = try purgeRefreshFamilies(before: now.addingTimeInterval(-Self.refreshRetention))
        // A Native SSO device session lives as long as its refresh families: once the purge has
        // taken the last of them (their links go with them), or a day after its revocation, it goes.
        report.deviceSessions = try write(
            """
            DELETE FROM device_sessions
            WHERE revoked_at <= ? OR (created_at <= ? AND NOT EXISTS (
                SELECT 1 FROM refresh_families f WHERE f.device_session_id = device_sessions.id))
            """,
            [
                .date(now.addingTimeInterval(-Self.refreshRetention)),
                .date(now.addingTimeInterval(-Self.refreshRetention)),
            ])
        report.passwordResets = try write("DELETE FROM password_resets WHERE expires_at <= ?", [.date(now)])
        report.throttleAttempts = try write("DELETE FROM throttle_attempts WHERE expires_at <= ?", [.date(now)])
        report.grantRevocations = try write("DELETE FROM grant_revocations WHERE expires_at <= ?", [.date(now)])
        report.companionTickets = try write("DELETE FROM companion_tickets WHERE expires_at <= ?", [.date(now)])
        report.pendingSignups = try write("DELETE FROM pending_signups WHERE expires_at <= ?", [.date(now)])
        return report
    }

    /// Deletes the families, among the next ``familyPurgeSlice`` ids after where the last run
    /// stopped, whose current token expired before `cutoff`, that were revoked before it, or
    /// that have had no token since the version-4 migration and began before it.
    ///
    /// As on SQLite, no index orders families by expiry (here it would also turn every
    /// rotation's HOT update into one that writes index entries); a slice by primary key reads
    /// a bounded number of pages per run, and runs go round the table. The position row is
    /// locked first (`FOR UPDATE`), so two nodes purging at once take turns instead of
    /// deleting the same slice.
    private func purgeRefreshFamilies(before cutoff: Date) throws -> Int {
        try write(
            "INSERT INTO purge_positions (name, last_key) VALUES ('refresh_families', '') ON CONFLICT (name) DO NOTHING",
            [])
        let start =
            try first(
                "SELECT last_key FROM purge_positions WHERE name = 'refresh_families' FOR UPDATE", []
            ) { $0.text(0) } ?? ""
        // The slice's last id; empty past the end of the table, so the next run starts over.
        let end =
            try first(
                """
                SELECT coalesce(max(id), '')
                FROM (SELECT id FROM refresh_families WHERE id > ? ORDER BY id LIMIT ?) AS slice
                """,
                [.text(start), .int(Self.familyPurgeSlice)]
            ) { $0.text(0) } ?? ""
        var deleted = 0
        if !end.isEmpty {
            deleted = try write(
                """
                DELETE FROM refresh_families WHERE id > ? AND id <= ?
                    AND (token_expires_at <= ? OR revoked_at <= ? OR (token_hash IS NULL AND created_at <= ?))
                """,
                [.text(start), .text(end), .date(cutoff), .date(cutoff), .date(cutoff)])
        }
        try write("UPDATE purge_positions SET last_key = ? WHERE name = 'refresh_families'", [.text(end)])
        return deleted
    }

    /// The advisory lock key of a purge batch ("portico purge" in ASCII, so it is recognisable
    /// in `pg_locks`).
    static var purgeLockKey: Int { 0x706F_7274_6963_6F50 }

    /// How many refresh families one purge looks at.
    static var familyPurgeSlice: Int { 10_000 }

    /// How long a redeemed code is kept past its expiry, so that a late replay still finds it.
    static var consumedCodeRetention: TimeInterval { 3600 }

    /// How long a refresh family is kept past its current token's expiry or its revocation.
    static var refreshRetention: TimeInterval { 86_400 }
}
