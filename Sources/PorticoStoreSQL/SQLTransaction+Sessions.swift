import Foundation
import PorticoStore

// Browser sessions, authorization codes and consents.
@usableFromInline let sessionColumns = """
    id_hash, user_id, created_at, expires_at, last_seen_at, auth_time, persistent, user_agent, ip_address
    """

@usableFromInline let codeColumns = """
    code_hash, client_id, user_id, redirect_uri, scopes, code_challenge, nonce, auth_time, session_hash,
    created_at, expires_at, consumed_at, issued_family_id, issued_access_token_id, issued_access_token_expires_at,
    resource, dpop_jkt
    """

extension SQLTransaction {
    // MARK: Browser sessions

    @usableFromInline static func decodeSession(_ row: Row) throws -> BrowserSession {
        BrowserSession(
            hashedID: try row.hashReference("id_hash"), userID: try row.text("user_id"),
            createdAt: try row.date("created_at"), expiresAt: try row.date("expires_at"),
            lastSeenAt: try row.date("last_seen_at"), authTime: try row.date("auth_time"),
            isPersistent: try row.bool("persistent"), userAgent: try row.optionalText("user_agent"),
            ipAddress: try row.optionalText("ip_address"))
    }

    /// ``SessionStorage/insert(_:)``, for every SQL backend.
    @inlinable public func insert(_ session: BrowserSession) throws {
        try write(
            "INSERT INTO browser_sessions (\(sessionColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                .hash(reference: session.hashedID), .text(session.userID), .date(session.createdAt),
                .date(session.expiresAt), .date(session.lastSeenAt), .date(session.authTime),
                .bool(session.isPersistent), .text(session.userAgent), .text(session.ipAddress),
            ], referring: "user")
    }

    /// ``SessionStorage/session(token:now:)``, for every SQL backend.
    @inlinable public func session(token: String, now: Date) throws -> BrowserSession? {
        try first(
            "SELECT \(sessionColumns) FROM browser_sessions WHERE id_hash = ? AND expires_at > ?",
            [.digest(token), .date(now)], Self.decodeSession)
    }

    /// ``SessionStorage/touchSession(token:lastSeenAt:expiresAt:)``, for every SQL backend.
    @inlinable public func touchSession(token: String, lastSeenAt: Date, expiresAt: Date?) throws -> Bool {
        try write(
            "UPDATE browser_sessions SET last_seen_at = ?, expires_at = COALESCE(\(dialect.integerParameter), expires_at) WHERE id_hash = ?",
            [.date(lastSeenAt), .date(expiresAt), .digest(token)]) > 0
    }

    /// ``SessionStorage/sessions(userID:)``, for every SQL backend.
    @inlinable public func sessions(userID: String) throws -> [BrowserSession] {
        try all(
            "SELECT \(sessionColumns) FROM browser_sessions WHERE user_id = ? ORDER BY created_at DESC",
            [.text(userID)], Self.decodeSession)
    }

    /// ``SessionStorage/deleteSession(token:)``, for every SQL backend.
    @inlinable public func deleteSession(token: String) throws -> Bool {
        try write("DELETE FROM browser_sessions WHERE id_hash = ?", [.digest(token)]) > 0
    }

    /// ``SessionStorage/deleteSession(hashedID:)``, for every SQL backend.
    @inlinable public func deleteSession(hashedID: String) throws -> Bool {
        try write("DELETE FROM browser_sessions WHERE id_hash = ?", [.hash(reference: hashedID)]) > 0
    }

    /// ``SessionStorage/deleteSessions(userID:)``, for every SQL backend.
    @inlinable public func deleteSessions(userID: String) throws -> Int {
        try write("DELETE FROM browser_sessions WHERE user_id = ?", [.text(userID)])
    }

    // MARK: Authorization codes

    @usableFromInline static func decodeCode(_ row: Row) throws -> AuthorizationCode {
        var code = AuthorizationCode(
            hashedCode: try row.hashReference("code_hash"), clientID: try row.text("client_id"),
            userID: try row.text("user_id"), redirectURI: try row.text("redirect_uri"), scopes: try row.list("scopes"),
            codeChallenge: try row.text("code_challenge"), nonce: try row.optionalText("nonce"),
            authTime: try row.date("auth_time"), sessionHashedID: try row.optionalHashReference("session_hash"),
            createdAt: try row.date("created_at"), expiresAt: try row.date("expires_at"),
            consumedAt: try row.optionalDate("consumed_at"),
            issuedRefreshFamilyID: try row.optionalText("issued_family_id"),
            issuedAccessTokenID: try row.optionalText("issued_access_token_id"),
            issuedAccessTokenExpiresAt: try row.optionalDate("issued_access_token_expires_at"))
        code.resource = try row.optionalText("resource")
        code.dpopKeyThumbprint = try row.optionalText("dpop_jkt")
        return code
    }

    /// ``AuthorizationCodeStorage/insert(_:)``, for every SQL backend.
    @inlinable public func insert(_ code: AuthorizationCode) throws {
        try write(
            "INSERT INTO authorization_codes (\(codeColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                .hash(reference: code.hashedCode), .text(code.clientID), .text(code.userID), .text(code.redirectURI),
                .list(code.scopes), .text(code.codeChallenge), .text(code.nonce), .date(code.authTime),
                .hash(reference: code.sessionHashedID), .date(code.createdAt), .date(code.expiresAt),
                .date(code.consumedAt), .text(code.issuedRefreshFamilyID), .text(code.issuedAccessTokenID),
                .date(code.issuedAccessTokenExpiresAt), .text(code.resource), .text(code.dpopKeyThumbprint),
            ], referring: "client or user")
    }

    /// ``AuthorizationCodeStorage/authorizationCode(_:)``, for every SQL backend.
    @inlinable public func authorizationCode(_ code: String) throws -> AuthorizationCode? {
        try first(
            "SELECT \(codeColumns) FROM authorization_codes WHERE code_hash = ?", [.digest(code)],
            Self.decodeCode)
    }

    /// ``AuthorizationCodeStorage/redeemAuthorizationCode(_:now:)``, for every SQL backend.
    @inlinable public func redeemAuthorizationCode(_ code: String, now: Date) throws -> CodeRedemption {
        let hash = SecretHash.digest(code)
        guard
            var stored = try first(
                "SELECT \(codeColumns) FROM authorization_codes WHERE code_hash = ?", [.bytes(hash)],
                Self.decodeCode)
        else { return .notFound }
        if stored.consumedAt != nil { return .alreadyUsed(stored) }
        if StoredTime.isExpired(stored.expiresAt, now: now) { return .expired }
        // The condition makes redemption atomic: of two concurrent redemptions, the second
        // (on PostgreSQL, after waiting for the first's row lock) finds `consumed_at` set and
        // changes nothing; it then reads the code as the first left it.
        let changed = try write(
            "UPDATE authorization_codes SET consumed_at = ? WHERE code_hash = ? AND consumed_at IS NULL",
            [.date(now), .bytes(hash)])
        if changed == 0 {
            let consumed =
                try first(
                    "SELECT \(codeColumns) FROM authorization_codes WHERE code_hash = ?", [.bytes(hash)],
                    Self.decodeCode) ?? stored
            return .alreadyUsed(consumed)
        }
        stored.consumedAt = StoredTime.stored(now)
        return .redeemed(stored)
    }

    /// ``AuthorizationCodeStorage/recordIssuance(forCode:refreshFamilyID:accessTokenID:accessTokenExpiresAt:)``,
    /// for every SQL backend.
    @inlinable public func recordIssuance(
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

    /// ``AuthorizationCodeStorage/forgetIssuance(forCode:)``, for every SQL backend.
    @inlinable public func forgetIssuance(forCode hashedCode: String) throws -> Bool {
        // The condition makes it a compare-and-swap: a second (or concurrent) call changes no row.
        try write(
            """
            UPDATE authorization_codes SET issued_family_id = NULL, issued_access_token_id = NULL,
                issued_access_token_expires_at = NULL
            WHERE code_hash = ? AND (issued_family_id IS NOT NULL OR issued_access_token_id IS NOT NULL)
            """,
            [.hash(reference: hashedCode)]) > 0
    }

    // MARK: Consents

    @usableFromInline static func decodeConsent(_ row: Row) throws -> Consent {
        Consent(
            userID: try row.text("user_id"), clientID: try row.text("client_id"), scopes: Set(try row.list("scopes")),
            createdAt: try row.date("created_at"), updatedAt: try row.date("updated_at"))
    }

    /// ``ConsentStorage/consent(userID:clientID:)``, for every SQL backend.
    @inlinable public func consent(userID: String, clientID: String) throws -> Consent? {
        try first(
            "SELECT user_id, client_id, scopes, created_at, updated_at FROM consents WHERE user_id = ? AND client_id = ?",
            [.text(userID), .text(clientID)], Self.decodeConsent)
    }

    /// ``ConsentStorage/saveConsent(userID:clientID:scopes:now:)``, for every SQL backend.
    @inlinable public func saveConsent(userID: String, clientID: String, scopes: Set<String>, now: Date) throws {
        try write(
            """
            INSERT INTO consents (user_id, client_id, scopes, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (user_id, client_id) DO UPDATE SET scopes = excluded.scopes, updated_at = excluded.updated_at
            """,
            [.text(userID), .text(clientID), .list(scopes.sorted()), .date(now), .date(now)],
            referring: "user or client")
    }

    /// ``ConsentStorage/revokeConsent(userID:clientID:)``, for every SQL backend.
    @inlinable public func revokeConsent(userID: String, clientID: String) throws -> Bool {
        try write("DELETE FROM consents WHERE user_id = ? AND client_id = ?", [.text(userID), .text(clientID)]) > 0
    }

    /// ``ConsentStorage/consents(userID:)``, for every SQL backend.
    @inlinable public func consents(userID: String) throws -> [Consent] {
        try all(
            """
            SELECT user_id, client_id, scopes, created_at, updated_at FROM consents WHERE user_id = ?
            ORDER BY updated_at DESC, client_id
            """,
            [.text(userID)], Self.decodeConsent)
    }
}
