import Foundation
import PorticoStore
import PorticoStoreSQL

// Account links, the audit log and purging.
extension SQLiteTransaction {
    // MARK: Account links

    private static let linkColumns = "host_client_id, host_user_id, platform_user_id, created_at, id"

    private static func decodeLink(_ row: SQLiteRow) -> AccountLink {
        AccountLink(
            id: row.text(4), hostClientID: row.text(0), hostUserID: row.text(1), platformUserID: row.text(2),
            createdAt: row.date(3))
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
                id: row.text(0), occurredAt: row.date(1), actor: row.text(2), action: row.text(3),
                subject: row.text(4), details: row.text(5))
        }
    }

    // MARK: Purging

    func purgeExpired(now: Date) throws -> PurgeReport {
        var report = PurgeReport()
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

    /// Deletes the families, among the next ``familyPurgeSlice`` rows after where the last run
    /// stopped, whose current token expired before `cutoff`, that were revoked before it, or
    /// that have had no token since the version-4 migration and began before it.
    ///
    /// Why a slice: no index orders families by expiry, because keeping one would cost every
    /// rotation two more b-tree pages (the expiry changes with each); a slice of rowids reads a
    /// bounded number of pages each run, and runs go round the table (at 10,000 a minute, a
    /// million families in under two hours).
    private func purgeRefreshFamilies(before cutoff: Date) throws -> Int {
        let start =
            try first("SELECT last_rowid FROM purge_positions WHERE name = 'refresh_families'", []) { $0.int(0) } ?? 0
        // The slice's last rowid; 0 past the end of the table, so the next run starts over.
        let end =
            try first(
                """
                SELECT coalesce(max(rowid), 0)
                FROM (SELECT rowid FROM refresh_families WHERE rowid > ? ORDER BY rowid LIMIT ?)
                """,
                [.int(start), .int(Self.familyPurgeSlice)]
            ) { $0.int(0) } ?? 0
        var deleted = 0
        if end > start {
            deleted = try write(
                """
                DELETE FROM refresh_families WHERE rowid > ? AND rowid <= ?
                    AND (token_expires_at <= ? OR revoked_at <= ? OR (token_hash IS NULL AND created_at <= ?))
                """,
                [.int(start), .int(end), .date(cutoff), .date(cutoff), .date(cutoff)])
        }
        try write(
            """
            INSERT INTO purge_positions (name, last_rowid) VALUES ('refresh_families', ?)
            ON CONFLICT (name) DO UPDATE SET last_rowid = excluded.last_rowid
            """,
            [.int(end)])
        return deleted
    }

    /// How many refresh families one purge looks at.
    static var familyPurgeSlice: Int { 10_000 }

    /// How long a redeemed code is kept past its expiry, so that a late replay still finds
    /// it and revokes what it issued.
    static var consumedCodeRetention: TimeInterval { 3600 }

    /// How long a refresh family is kept past its current token's expiry or its revocation
    /// (and the hash of a token minted before tokens named their family past that token's
    /// expiry), so that presenting a token reports "expired", "revoked" or "reused" rather than
    /// "unknown".
    static var refreshRetention: TimeInterval { 86_400 }
}
