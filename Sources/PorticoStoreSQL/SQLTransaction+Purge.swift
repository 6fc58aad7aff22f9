import Foundation
import PorticoStore

// Purging what has expired: the same deletes on every SQL backend; what differs (who takes a
// turn, how refresh families are sliced) is ``SQLPurging``.
extension SQLTransaction where Self: SQLPurging {
    /// Deletes what has expired, after the backend's turn is taken (``SQLPurging/takePurgeTurn()``);
    /// an empty report when another node has the turn.
    @inlinable public func purgeExpired(now: Date) throws -> PurgeReport {
        var report = PurgeReport()
        guard try takePurgeTurn() else { return report }
        let refreshCutoff = now.addingTimeInterval(-SQLPurgeRetention.refreshFamily)
        report.authorizationCodes = try write(
            """
            DELETE FROM authorization_codes
            WHERE (consumed_at IS NULL AND expires_at <= ?) OR expires_at <= ?
            """,
            [.date(now), .date(now.addingTimeInterval(-SQLPurgeRetention.consumedCode))])
        report.sessions = try write("DELETE FROM browser_sessions WHERE expires_at <= ?", [.date(now)])
        report.deviceAuthorizations = try write("DELETE FROM device_authorizations WHERE expires_at <= ?", [.date(now)])
        report.accessTokenRevocations = try write(
            "DELETE FROM access_token_revocations WHERE expires_at <= ?", [.date(now)])
        report.refreshTokens = try write(
            "DELETE FROM legacy_refresh_tokens WHERE expires_at <= ?", [.date(refreshCutoff)])
        report.refreshFamilies = try purgeRefreshFamilies(before: refreshCutoff)
        // A Native SSO device session lives as long as its refresh families: once the purge has
        // taken the last of them (their links go with them), or a day after its revocation, it goes.
        report.deviceSessions = try write(
            """
            DELETE FROM device_sessions
            WHERE revoked_at <= ? OR (created_at <= ? AND NOT EXISTS (
                SELECT 1 FROM refresh_families f WHERE f.device_session_id = device_sessions.id))
            """,
            [.date(refreshCutoff), .date(refreshCutoff)])
        report.passwordResets = try write("DELETE FROM password_resets WHERE expires_at <= ?", [.date(now)])
        report.throttleAttempts = try write("DELETE FROM throttle_attempts WHERE expires_at <= ?", [.date(now)])
        report.grantRevocations = try write("DELETE FROM grant_revocations WHERE expires_at <= ?", [.date(now)])
        report.companionTickets = try write("DELETE FROM companion_tickets WHERE expires_at <= ?", [.date(now)])
        report.pendingSignups = try write("DELETE FROM pending_signups WHERE expires_at <= ?", [.date(now)])
        report.dpopProofs = try write("DELETE FROM dpop_proofs WHERE expires_at <= ?", [.date(now)])
        report.pushedRequests = try write("DELETE FROM pushed_requests WHERE expires_at <= ?", [.date(now)])
        report.passkeyChallenges = try write("DELETE FROM passkey_challenges WHERE expires_at <= ?", [.date(now)])
        report.signInDays = try write(
            "DELETE FROM client_sign_in_days WHERE day < ?",
            [.integer(Int64(DailySignIns.day(of: now) - SQLPurgeRetention.signInDays))])
        return report
    }
}
