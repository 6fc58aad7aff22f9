import Foundation
import PorticoStore

// Refresh-token families and tokens, access-token revocations, device authorizations.
@usableFromInline let familyColumns = "id, client_id, user_id, scopes, auth_time, created_at, revoked_at"

@usableFromInline let familyAndTokenColumns =
    familyColumns + ", token_hash, token_issued_at, token_expires_at, previous_token_hash, rotated_at"

@usableFromInline let insertFamily =
    "INSERT INTO refresh_families (\(familyAndTokenColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL)"
@usableFromInline let insertFamilyInDeviceSession = """
    INSERT INTO refresh_families (\(familyAndTokenColumns), device_session_id)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, ?)
    """

@usableFromInline let deviceColumns = """
    device_code_hash, user_code, client_id, scopes, created_at, expires_at, interval_seconds, last_polled_at,
    status, user_id, auth_time
    """

extension SQLTransaction {
    /// A refresh family's columns, then its token state, for a backend's bulk insert.
    @inlinable public static var refreshFamilyAndTokenColumns: String { familyAndTokenColumns }

    // MARK: Refresh-token families

    /// The family's columns, then its token state.
    @usableFromInline static func decodeFamily(_ row: Row) throws -> RefreshFamily {
        RefreshFamily(
            id: try row.text("id"), clientID: try row.text("client_id"), userID: try row.text("user_id"),
            scopes: try row.list("scopes"), authTime: try row.date("auth_time"), createdAt: try row.date("created_at"),
            revokedAt: try row.optionalDate("revoked_at"))
    }

    @usableFromInline static func decodeState(_ row: Row) throws -> RefreshTokenState {
        RefreshTokenState(
            family: try decodeFamily(row), currentTokenHash: try row.optionalBytes("token_hash"),
            issuedAt: try row.optionalDate("token_issued_at") ?? .distantPast,
            expiresAt: try row.optionalDate("token_expires_at") ?? .distantPast,
            previousTokenHash: try row.optionalBytes("previous_token_hash"),
            rotatedAt: try row.optionalDate("rotated_at"))
    }

    /// ``RefreshTokenStorage/insert(_:token:expiresAt:)``, for every SQL backend.
    @inlinable public func insert(_ family: RefreshFamily, token: String, expiresAt: Date) throws {
        try insert(family, token: token, expiresAt: expiresAt, deviceSessionID: nil)
    }

    /// ``DeviceSessionStorage/insert(_:token:expiresAt:inDeviceSession:)``, for every SQL backend.
    @inlinable public func insert(
        _ family: RefreshFamily, token: String, expiresAt: Date, inDeviceSession sessionID: String
    )
        throws
    {
        try insert(family, token: token, expiresAt: expiresAt, deviceSessionID: sessionID)
    }

    /// The family's row with its first token, linked to a device session or not.
    @usableFromInline func insert(_ family: RefreshFamily, token: String, expiresAt: Date, deviceSessionID: String?)
        throws
    {
        var values: [SQLValue] = [
            .text(family.id), .text(family.clientID), .text(family.userID), .list(family.scopes),
            .date(family.authTime), .date(family.createdAt), .date(family.revokedAt), .digest(token),
            .date(family.createdAt), .date(expiresAt),
        ]
        guard let deviceSessionID else {
            try write(insertFamily, values, referring: "client or user")
            return
        }
        values.append(.text(deviceSessionID))
        try write(insertFamilyInDeviceSession, values, referring: "client, user or device session")
    }

    /// ``RefreshTokenStorage/refreshFamily(id:)``, for every SQL backend.
    @inlinable public func refreshFamily(id: String) throws -> RefreshFamily? {
        try first("SELECT \(familyColumns) FROM refresh_families WHERE id = ?", [.text(id)], Self.decodeFamily)
    }

    /// ``RefreshTokenStorage/refreshFamilies(userID:includeRevoked:)``, for every SQL backend.
    @inlinable public func refreshFamilies(userID: String, includeRevoked: Bool) throws -> [RefreshFamily] {
        try all(
            """
            SELECT \(familyColumns) FROM refresh_families
            WHERE user_id = ? AND (\(dialect.booleanParameter) OR revoked_at IS NULL) ORDER BY created_at DESC, id
            """,
            [.text(userID), .bool(includeRevoked)], Self.decodeFamily)
    }

    /// ``RefreshTokenStorage/revokeRefreshFamily(id:now:)``, for every SQL backend.
    @inlinable public func revokeRefreshFamily(id: String, now: Date) throws -> Bool {
        try write(
            "UPDATE refresh_families SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", [.date(now), .text(id)])
            > 0
    }

    /// ``RefreshTokenStorage/revokeRefreshFamilies(userID:clientID:now:)``, for every SQL backend.
    @inlinable public func revokeRefreshFamilies(userID: String, clientID: String, now: Date) throws -> Int {
        try write(
            "UPDATE refresh_families SET revoked_at = ? WHERE user_id = ? AND client_id = ? AND revoked_at IS NULL",
            [.date(now), .text(userID), .text(clientID)])
    }

    // MARK: Refresh tokens

    /// ``RefreshTokenStorage/refreshTokenState(familyID:)``, for every SQL backend.
    @inlinable public func refreshTokenState(familyID: String) throws -> RefreshTokenState? {
        try first(
            "SELECT \(familyAndTokenColumns) FROM refresh_families WHERE id = ?", [.text(familyID)],
            Self.decodeState)
    }

    /// ``RefreshTokenStorage/refreshFamilyID(legacyTokenHash:)``, for every SQL backend.
    @inlinable public func refreshFamilyID(legacyTokenHash: [UInt8]) throws -> String? {
        try first(
            "SELECT family_id FROM legacy_refresh_tokens WHERE token_hash = ?", [.bytes(legacyTokenHash)],
            { try $0.text("family_id") })
    }

    /// ``RefreshTokenStorage/swapRefreshToken(familyID:from:to:issuedAt:expiresAt:)``, for every SQL backend.
    @inlinable public func swapRefreshToken(
        familyID: String, from expected: [UInt8], to successor: [UInt8], issuedAt: Date, expiresAt: Date
    ) throws -> Bool {
        // The expected current hash in the WHERE is the compare-and-swap: a second rotation of
        // one token (on PostgreSQL, after waiting for the first's row lock) finds the hash changed
        // and writes nothing.
        try write(
            """
            UPDATE refresh_families SET previous_token_hash = token_hash, rotated_at = ?, token_hash = ?,
                token_issued_at = ?, token_expires_at = ?
            WHERE id = ? AND token_hash = ? AND revoked_at IS NULL
            """,
            [.date(issuedAt), .bytes(successor), .date(issuedAt), .date(expiresAt), .text(familyID), .bytes(expected)])
            > 0
    }

    /// ``RefreshTokenStorage/replaceRefreshToken(familyID:expected:with:issuedAt:expiresAt:)``, for every SQL
    /// backend.
    @inlinable public func replaceRefreshToken(
        familyID: String, expected: [UInt8], with replacement: [UInt8], issuedAt: Date, expiresAt: Date
    ) throws -> Bool {
        try write(
            """
            UPDATE refresh_families SET token_hash = ?, token_issued_at = ?, token_expires_at = ?
            WHERE id = ? AND token_hash = ? AND revoked_at IS NULL AND previous_token_hash IS NOT NULL
            """,
            [.bytes(replacement), .date(issuedAt), .date(expiresAt), .text(familyID), .bytes(expected)]) > 0
    }

    // MARK: Access-token revocations

    /// ``AccessTokenRevocationStorage/revokeAccessToken(id:expiresAt:)``, for every SQL backend.
    @inlinable public func revokeAccessToken(id: String, expiresAt: Date) throws {
        try write(
            """
            INSERT INTO access_token_revocations AS r (jti, expires_at) VALUES (?, ?)
            ON CONFLICT (jti) DO UPDATE SET expires_at = \(dialect.greatest)(r.expires_at, excluded.expires_at)
            """,
            [.text(id), .date(expiresAt)])
    }

    /// ``AccessTokenRevocationStorage/isAccessTokenRevoked(id:)``, for every SQL backend.
    @inlinable public func isAccessTokenRevoked(id: String) throws -> Bool {
        try first("SELECT 1 FROM access_token_revocations WHERE jti = ?", [.text(id)]) { _ in true } ?? false
    }

    /// ``AccessTokenRevocationStorage/revokeGrant(userID:clientID:at:expiresAt:)``, for every SQL backend.
    @inlinable public func revokeGrant(userID: String, clientID: String, at time: Date, expiresAt: Date) throws {
        try write(
            """
            INSERT INTO grant_revocations AS g (user_id, client_id, revoked_at, expires_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (user_id, client_id) DO UPDATE SET
                revoked_at = CASE WHEN g.revoked_at >= excluded.revoked_at THEN g.revoked_at + 1
                    ELSE excluded.revoked_at END,
                expires_at = \(dialect.greatest)(g.expires_at, excluded.expires_at)
            """,
            [.text(userID), .text(clientID), .date(time), .date(expiresAt)])
    }

    /// ``AccessTokenRevocationStorage/grantRevocationTime(userID:clientID:)``, for every SQL backend.
    @inlinable public func grantRevocationTime(userID: String, clientID: String) throws -> Date? {
        try first(
            "SELECT revoked_at FROM grant_revocations WHERE user_id = ? AND client_id = ?",
            [.text(userID), .text(clientID)]
        ) { try $0.date("revoked_at") }
    }

    /// ``AccessTokenRevocationStorage/isAccessTokenRevoked(id:userID:clientID:issuedAt:)``, for every SQL backend.
    @inlinable public func isAccessTokenRevoked(id: String, userID: String, clientID: String, issuedAt: Date) throws
        -> Bool
    {
        try first(
            """
            SELECT (EXISTS (SELECT 1 FROM access_token_revocations WHERE jti = ?)
                OR EXISTS (SELECT 1 FROM grant_revocations WHERE user_id = ? AND client_id = ? AND revoked_at >= ?)
                OR NOT EXISTS (SELECT 1 FROM clients WHERE id = ? AND suspended_at IS NULL))
                AS revoked
            """,
            [.text(id), .text(userID), .text(clientID), .date(issuedAt), .text(clientID)]
        ) { try $0.bool("revoked") } ?? false
    }

    // MARK: Device authorizations

    @usableFromInline static func decodeDevice(_ row: Row) throws -> DeviceAuthorization {
        let statusName = try row.text("status")
        guard let status = DeviceAuthorizationStatus(rawValue: statusName) else {
            throw StoreError.corrupt("unknown device authorization status '\(statusName)'")
        }
        return DeviceAuthorization(
            hashedDeviceCode: try row.hashReference("device_code_hash"), userCode: try row.text("user_code"),
            clientID: try row.text("client_id"), scopes: try row.list("scopes"), createdAt: try row.date("created_at"),
            expiresAt: try row.date("expires_at"), interval: try row.int("interval_seconds"),
            lastPolledAt: try row.optionalDate("last_polled_at"), status: status,
            userID: try row.optionalText("user_id"), authTime: try row.optionalDate("auth_time"))
    }

    /// ``DeviceAuthorizationStorage/insert(_:)``, for every SQL backend.
    @inlinable public func insert(_ authorization: DeviceAuthorization) throws {
        try write(
            "INSERT INTO device_authorizations (\(deviceColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                .hash(reference: authorization.hashedDeviceCode), .text(authorization.userCode),
                .text(authorization.clientID), .list(authorization.scopes), .date(authorization.createdAt),
                .date(authorization.expiresAt), .int(authorization.interval), .date(authorization.lastPolledAt),
                .text(authorization.status.rawValue), .text(authorization.userID), .date(authorization.authTime),
            ], referring: "client or user")
    }

    /// ``DeviceAuthorizationStorage/deleteDeviceAuthorization(userCode:expiredBy:)``, for every SQL backend.
    @inlinable public func deleteDeviceAuthorization(userCode: String, expiredBy now: Date) throws -> Bool {
        try write(
            "DELETE FROM device_authorizations WHERE user_code = ? AND expires_at <= ?",
            [.text(DeviceAuthorization.normalizedUserCode(userCode)), .date(now)]) > 0
    }

    /// ``DeviceAuthorizationStorage/deviceAuthorization(userCode:now:)``, for every SQL backend.
    @inlinable public func deviceAuthorization(userCode: String, now: Date) throws -> DeviceAuthorization? {
        try first(
            "SELECT \(deviceColumns) FROM device_authorizations WHERE user_code = ? AND expires_at > ?",
            [.text(DeviceAuthorization.normalizedUserCode(userCode)), .date(now)], Self.decodeDevice)
    }

    /// ``DeviceAuthorizationStorage/deviceAuthorization(deviceCode:)``, for every SQL backend.
    @inlinable public func deviceAuthorization(deviceCode: String) throws -> DeviceAuthorization? {
        try first(
            "SELECT \(deviceColumns) FROM device_authorizations WHERE device_code_hash = ?",
            [.digest(deviceCode)], Self.decodeDevice)
    }

    /// ``DeviceAuthorizationStorage/approveDeviceAuthorization(userCode:userID:authTime:now:)``, for every SQL backend.
    @inlinable public func approveDeviceAuthorization(userCode: String, userID: String, authTime: Date, now: Date)
        throws -> Bool
    {
        try write(
            """
            UPDATE device_authorizations SET status = 'approved', user_id = ?, auth_time = ?
            WHERE user_code = ? AND status = 'pending' AND expires_at > ?
            """,
            [.text(userID), .date(authTime), .text(DeviceAuthorization.normalizedUserCode(userCode)), .date(now)],
            referring: "user") > 0
    }

    /// ``DeviceAuthorizationStorage/denyDeviceAuthorization(userCode:now:)``, for every SQL backend.
    @inlinable public func denyDeviceAuthorization(userCode: String, now: Date) throws -> Bool {
        try write(
            """
            UPDATE device_authorizations SET status = 'denied'
            WHERE user_code = ? AND status = 'pending' AND expires_at > ?
            """,
            [.text(DeviceAuthorization.normalizedUserCode(userCode)), .date(now)]) > 0
    }

    /// ``DeviceAuthorizationStorage/consumeDeviceAuthorization(deviceCode:now:)``, for every SQL backend.
    @inlinable public func consumeDeviceAuthorization(deviceCode: String, now: Date) throws -> Bool {
        try write(
            """
            UPDATE device_authorizations SET status = 'consumed', last_polled_at = ?
            WHERE device_code_hash = ? AND status = 'approved'
            """,
            [.date(now), .digest(deviceCode)]) > 0
    }

    /// ``DeviceAuthorizationStorage/recordDevicePoll(deviceCode:now:interval:ifLastPolledAt:)``, for every SQL backend.
    @inlinable public func recordDevicePoll(
        deviceCode: String, now: Date, interval: Int, ifLastPolledAt lastPolledAt: Date?
    )
        throws
        -> Bool
    {
        // A NULL-safe comparison (`IS` on SQLite, `IS NOT DISTINCT FROM` on PostgreSQL): "never
        // polled" is a value the swap can expect.
        try write(
            """
            UPDATE device_authorizations SET interval_seconds = ?, last_polled_at = ?
            WHERE device_code_hash = ? AND last_polled_at \(dialect.nullSafeEqual) \(dialect.integerParameter)
            """,
            [.int(interval), .date(now), .digest(deviceCode), .date(lastPolledAt)]) > 0
    }
}
