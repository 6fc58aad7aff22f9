import Foundation
import PorticoStore
import PorticoStoreSQL

// Browser sessions, authorization codes and consents.
extension PostgresTransaction {
    // MARK: Browser sessions

    private static let sessionColumns = """
        id_hash, user_id, created_at, expires_at, last_seen_at, auth_time, persistent, user_agent, ip_address
        """

    private static func decodeSession(_ row: PostgresRow) throws -> BrowserSession {
        BrowserSession(
            hashedID: try row.hashReference(0), userID: row.text(1), createdAt: try row.date(2),
            expiresAt: try row.date(3), lastSeenAt: try row.date(4), authTime: try row.date(5),
            isPersistent: try row.bool(6), userAgent: row.optionalText(7), ipAddress: row.optionalText(8))
    }

    func insert(_ session: BrowserSession) throws {
        try write(
            "INSERT INTO browser_sessions (\(Self.sessionColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                .hash(reference: session.hashedID), .text(session.userID), .date(session.createdAt),
                .date(session.expiresAt), .date(session.lastSeenAt), .date(session.authTime),
                .bool(session.isPersistent), .text(session.userAgent), .text(session.ipAddress),
            ], referring: "user")
    }

    func session(token: String, now: Date) throws -> BrowserSession? {
        try first(
            "SELECT \(Self.sessionColumns) FROM browser_sessions WHERE id_hash = ? AND expires_at > ?",
            [.digest(token), .date(now)], Self.decodeSession)
    }

    func touchSession(token: String, lastSeenAt: Date, expiresAt: Date?) throws -> Bool {
        try write(
            "UPDATE browser_sessions SET last_seen_at = ?, expires_at = COALESCE(?::bigint, expires_at) WHERE id_hash = ?",
            [.date(lastSeenAt), .date(expiresAt), .digest(token)]) > 0
    }

    func sessions(userID: String) throws -> [BrowserSession] {
        try all(
            "SELECT \(Self.sessionColumns) FROM browser_sessions WHERE user_id = ? ORDER BY created_at DESC",
            [.text(userID)], Self.decodeSession)
    }

    func deleteSession(token: String) throws -> Bool {
        try write("DELETE FROM browser_sessions WHERE id_hash = ?", [.digest(token)]) > 0
    }

    func deleteSession(hashedID: String) throws -> Bool {
        try write("DELETE FROM browser_sessions WHERE id_hash = ?", [.hash(reference: hashedID)]) > 0
    }

    func deleteSessions(userID: String) throws -> Int {
        try write("DELETE FROM browser_sessions WHERE user_id = ?", [.text(userID)])
    }

    // MARK: Authorization codes

    private static let codeColumns = """
        code_hash, client_id, user_id, redirect_uri, scopes, code_challenge, nonce, auth_time, session_hash,
        created_at, expires_at, consumed_at, issued_family_id, issued_access_token_id, issued_access_token_expires_at,
        resource
        """

    private static func decodeCode(_ row: PostgresRow) throws -> AuthorizationCode {
        var code = AuthorizationCode(
            hashedCode: try row.hashReference(0), clientID: row.text(1), userID: row.text(2),
            redirectURI: row.text(3), scopes: try row.list(4), codeChallenge: row.text(5), nonce: row.optionalText(6),
            authTime: try row.date(7), sessionHashedID: try row.optionalHashReference(8), createdAt: try row.date(9),
            expiresAt: try row.date(10), consumedAt: try row.optionalDate(11),
            issuedRefreshFamilyID: row.optionalText(12), issuedAccessTokenID: row.optionalText(13),
            issuedAccessTokenExpiresAt: try row.optionalDate(14))
        code.resource = row.optionalText(15)
        return code
    }

    func insert(_ code: AuthorizationCode) throws {
        try write(
            "INSERT INTO authorization_codes (\(Self.codeColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                .hash(reference: code.hashedCode), .text(code.clientID), .text(code.userID), .text(code.redirectURI),
                .list(code.scopes), .text(code.codeChallenge), .text(code.nonce), .date(code.authTime),
                .hash(reference: code.sessionHashedID), .date(code.createdAt), .date(code.expiresAt),
                .date(code.consumedAt), .text(code.issuedRefreshFamilyID), .text(code.issuedAccessTokenID),
                .date(code.issuedAccessTokenExpiresAt), .text(code.resource),
            ], referring: "client or user")
    }

    func authorizationCode(_ code: String) throws -> AuthorizationCode? {
        try first(
            "SELECT \(Self.codeColumns) FROM authorization_codes WHERE code_hash = ?", [.digest(code)],
            Self.decodeCode)
    }

    func redeemAuthorizationCode(_ code: String, now: Date) throws -> CodeRedemption {
        let hash = SecretHash.digest(code)
        guard
            var stored = try first(
                "SELECT \(Self.codeColumns) FROM authorization_codes WHERE code_hash = ?", [.bytes(hash)],
                Self.decodeCode)
        else { return .notFound }
        if stored.consumedAt != nil { return .alreadyUsed(stored) }
        if StoredTime.isExpired(stored.expiresAt, now: now) { return .expired }
        // The condition makes redemption atomic: of two concurrent redemptions, the second
        // waits for the first's row lock, re-checks `consumed_at IS NULL` and changes nothing.
        let changed = try write(
            "UPDATE authorization_codes SET consumed_at = ? WHERE code_hash = ? AND consumed_at IS NULL",
            [.date(now), .bytes(hash)])
        if changed == 0 {
            let consumed =
                try first(
                    "SELECT \(Self.codeColumns) FROM authorization_codes WHERE code_hash = ?", [.bytes(hash)],
                    Self.decodeCode) ?? stored
            return .alreadyUsed(consumed)
        }
        stored.consumedAt = StoredTime.stored(now)
        return .redeemed(stored)
    }

    func recordIssuance(
        forCode hashedCode: String, refreshFamilyID: String?, accessTokenID: String?, accessTokenExpiresAt: Date?
    ) throws {
        let changed = try write(
            """
            UPDATE authorization_codes SET issued_family_id = ?, issued_access_token_id = ?,
                issued_access_token_expires_at = ?
            WHERE code_hash = ?
            """,
            [
                .text(refreshFamilyID), .text(accessTokenID), .date(accessTokenExpiresAt),
                .hash(reference: hashedCode),
            ])
        if changed == 0 { throw StoreError.notFound(entity: "authorization code", id: hashedCode) }
    }

    // MARK: Consents

    private static func decodeConsent(_ row: PostgresRow) throws -> Consent {
        Consent(
            userID: row.text(0), clientID: row.text(1), scopes: Set(try row.list(2)), createdAt: try row.date(3),
            updatedAt: try row.date(4))
    }

    func consent(userID: String, clientID: String) throws -> Consent? {
        try first(
            "SELECT user_id, client_id, scopes, created_at, updated_at FROM consents WHERE user_id = ? AND client_id = ?",
            [.text(userID), .text(clientID)], Self.decodeConsent)
    }

    func saveConsent(userID: String, clientID: String, scopes: Set<String>, now: Date) throws {
        try write(
            """
            INSERT INTO consents (user_id, client_id, scopes, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (user_id, client_id) DO UPDATE SET scopes = excluded.scopes, updated_at = excluded.updated_at
            """,
            [.text(userID), .text(clientID), .list(scopes.sorted()), .date(now), .date(now)],
            referring: "user or client")
    }

    func revokeConsent(userID: String, clientID: String) throws -> Bool {
        try write("DELETE FROM consents WHERE user_id = ? AND client_id = ?", [.text(userID), .text(clientID)]) > 0
    }

    func consents(userID: String) throws -> [Consent] {
        try all(
            """
            SELECT user_id, client_id, scopes, created_at, updated_at FROM consents WHERE user_id = ?
            ORDER BY updated_at DESC, client_id
            """,
            [.text(userID)], Self.decodeConsent)
    }
}
