import Foundation

// Refresh-token families and tokens, access-token revocations, device authorizations.
extension SQLiteTransaction {
    // MARK: Refresh-token families

    private static let familyColumns = "id, client_id, user_id, scopes, auth_time, created_at, revoked_at"

    /// Decodes family columns starting at `offset` (joins put them after the token's).
    private static func decodeFamily(_ row: SQLiteRow, offset: Int32 = 0) throws -> RefreshFamily {
        RefreshFamily(
            id: row.text(offset), clientID: row.text(offset + 1), userID: row.text(offset + 2),
            scopes: try row.list(offset + 3), authTime: row.date(offset + 4), createdAt: row.date(offset + 5),
            revokedAt: row.optionalDate(offset + 6))
    }

    func insert(_ family: RefreshFamily) throws {
        try write(
            "INSERT INTO refresh_families (\(Self.familyColumns)) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                .text(family.id), .text(family.clientID), .text(family.userID), .list(family.scopes),
                .date(family.authTime), .date(family.createdAt), .date(family.revokedAt),
            ], referring: "client or user")
    }

    func refreshFamily(id: String) throws -> RefreshFamily? {
        try first("SELECT \(Self.familyColumns) FROM refresh_families WHERE id = ?", [.text(id)]) {
            try Self.decodeFamily($0)
        }
    }

    func refreshFamilies(userID: String, includeRevoked: Bool) throws -> [RefreshFamily] {
        try all(
            """
            SELECT \(Self.familyColumns) FROM refresh_families
            WHERE user_id = ? AND (? OR revoked_at IS NULL) ORDER BY created_at DESC, id
            """,
            [.text(userID), .bool(includeRevoked)]
        ) { try Self.decodeFamily($0) }
    }

    func revokeRefreshFamily(id: String, now: Date) throws -> Bool {
        try write(
            "UPDATE refresh_families SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", [.date(now), .text(id)])
            > 0
    }

    func revokeRefreshFamilies(userID: String, clientID: String, now: Date) throws -> Int {
        try write(
            "UPDATE refresh_families SET revoked_at = ? WHERE user_id = ? AND client_id = ? AND revoked_at IS NULL",
            [.date(now), .text(userID), .text(clientID)])
    }

    // MARK: Refresh tokens

    private static let tokenColumns = "token_hash, family_id, created_at, expires_at, rotated_at, successor_hash"

    private static func decodeToken(_ row: SQLiteRow) -> RefreshToken {
        RefreshToken(
            hashedToken: row.hashReference(0), familyID: row.text(1), createdAt: row.date(2), expiresAt: row.date(3),
            rotatedAt: row.optionalDate(4), successorHash: row.optionalHashReference(5))
    }

    func insert(_ token: RefreshToken) throws {
        try write(
            "INSERT INTO refresh_tokens (\(Self.tokenColumns)) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .hash(reference: token.hashedToken), .text(token.familyID), .date(token.createdAt),
                .date(token.expiresAt), .date(token.rotatedAt), .hash(reference: token.successorHash),
            ], referring: "refresh family")
    }

    func refreshToken(_ token: String) throws -> RefreshToken? {
        try first(
            "SELECT \(Self.tokenColumns) FROM refresh_tokens WHERE token_hash = ?", [.blob(SecretHash.digest(token))],
            Self.decodeToken)
    }

    func refreshTokens(familyID: String) throws -> [RefreshToken] {
        try all(
            "SELECT \(Self.tokenColumns) FROM refresh_tokens WHERE family_id = ? ORDER BY created_at, rowid",
            [.text(familyID)], Self.decodeToken)
    }

    func rotateRefreshToken(
        _ presented: String, expiresAt: Date, now: Date, replacement: (RefreshFamily) throws -> String
    ) throws -> RefreshRotation {
        let hash = SecretHash.digest(presented)
        let found = try first(
            """
            SELECT t.token_hash, t.family_id, t.created_at, t.expires_at, t.rotated_at, t.successor_hash,
                f.id, f.client_id, f.user_id, f.scopes, f.auth_time, f.created_at, f.revoked_at
            FROM refresh_tokens t JOIN refresh_families f ON f.id = t.family_id
            WHERE t.token_hash = ?
            """,
            [.blob(hash)]
        ) { row in (token: Self.decodeToken(row), family: try Self.decodeFamily(row, offset: 6)) }
        guard let (token, family) = found else { return .notFound }
        if family.isRevoked { return .revoked(family: family) }
        if token.rotatedAt != nil { return .reused(family: family, token: token) }
        if Self.isExpired(token.expiresAt, now: now) { return .expired(family: family) }
        let successor = RefreshToken(
            token: try replacement(family), familyID: family.id, createdAt: now, expiresAt: expiresAt)
        let changed = try write(
            "UPDATE refresh_tokens SET rotated_at = ?, successor_hash = ? WHERE token_hash = ? AND rotated_at IS NULL",
            [.date(now), .hash(reference: successor.hashedToken), .blob(hash)])
        if changed == 0 { return .reused(family: family, token: token) }
        try insert(successor)
        return .rotated(family: family, successor: Self.stored(successor))
    }

    /// A token as it reads back (times to whole seconds), so results compare equal to lookups.
    private static func stored(_ token: RefreshToken) -> RefreshToken {
        RefreshToken(
            hashedToken: token.hashedToken, familyID: token.familyID, createdAt: wholeSeconds(token.createdAt),
            expiresAt: wholeSeconds(token.expiresAt), rotatedAt: nil, successorHash: nil)
    }

    static func wholeSeconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: TimeInterval(SQLiteValue.seconds(date)))
    }

    // MARK: Access-token revocations

    func revokeAccessToken(id: String, expiresAt: Date) throws {
        try write(
            """
            INSERT INTO access_token_revocations (jti, expires_at) VALUES (?, ?)
            ON CONFLICT (jti) DO UPDATE SET expires_at = max(expires_at, excluded.expires_at)
            """,
            [.text(id), .date(expiresAt)])
    }

    func isAccessTokenRevoked(id: String) throws -> Bool {
        try first("SELECT 1 FROM access_token_revocations WHERE jti = ?", [.text(id)]) { _ in true } ?? false
    }

    func revokeGrant(userID: String, clientID: String, at time: Date, expiresAt: Date) throws {
        try write(
            """
            INSERT INTO grant_revocations (user_id, client_id, revoked_at, expires_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (user_id, client_id) DO UPDATE SET
                revoked_at = max(revoked_at, excluded.revoked_at), expires_at = max(expires_at, excluded.expires_at)
            """,
            [.text(userID), .text(clientID), .date(time), .date(expiresAt)])
    }

    func isAccessTokenRevoked(id: String, userID: String, clientID: String, issuedAt: Date) throws -> Bool {
        try first(
            """
            SELECT EXISTS (SELECT 1 FROM access_token_revocations WHERE jti = ?)
                OR EXISTS (SELECT 1 FROM grant_revocations WHERE user_id = ? AND client_id = ? AND revoked_at >= ?)
            """,
            [.text(id), .text(userID), .text(clientID), .date(issuedAt)]
        ) { $0.int(0) != 0 } ?? false
    }

    // MARK: Device authorizations

    private static let deviceColumns = """
        device_code_hash, user_code, client_id, scopes, created_at, expires_at, interval_seconds, last_polled_at,
        status, user_id, auth_time
        """

    private static func decodeDevice(_ row: SQLiteRow) throws -> DeviceAuthorization {
        let statusName = row.text(8)
        guard let status = DeviceAuthorizationStatus(rawValue: statusName) else {
            throw StoreError.corrupt("unknown device authorization status '\(statusName)'")
        }
        return DeviceAuthorization(
            hashedDeviceCode: row.hashReference(0), userCode: row.text(1), clientID: row.text(2),
            scopes: try row.list(3), createdAt: row.date(4), expiresAt: row.date(5), interval: row.int(6),
            lastPolledAt: row.optionalDate(7), status: status, userID: row.optionalText(9),
            authTime: row.optionalDate(10))
    }

    func insert(_ authorization: DeviceAuthorization) throws {
        // A user code only has to be unique among live authorizations: an expired holder that
        // the purger has not reached yet gives way.
        try write(
            "DELETE FROM device_authorizations WHERE user_code = ? AND expires_at <= ?",
            [.text(authorization.userCode), .date(authorization.createdAt)])
        try write(
            "INSERT INTO device_authorizations (\(Self.deviceColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                .hash(reference: authorization.hashedDeviceCode), .text(authorization.userCode),
                .text(authorization.clientID), .list(authorization.scopes), .date(authorization.createdAt),
                .date(authorization.expiresAt), .int(authorization.interval), .date(authorization.lastPolledAt),
                .text(authorization.status.rawValue), .text(authorization.userID), .date(authorization.authTime),
            ], referring: "client or user")
    }

    func deviceAuthorization(userCode: String, now: Date) throws -> DeviceAuthorization? {
        try first(
            "SELECT \(Self.deviceColumns) FROM device_authorizations WHERE user_code = ? AND expires_at > ?",
            [.text(DeviceAuthorization.normalizedUserCode(userCode)), .date(now)], Self.decodeDevice)
    }

    func deviceAuthorization(deviceCode: String) throws -> DeviceAuthorization? {
        try first(
            "SELECT \(Self.deviceColumns) FROM device_authorizations WHERE device_code_hash = ?",
            [.blob(SecretHash.digest(deviceCode))], Self.decodeDevice)
    }

    func approveDeviceAuthorization(userCode: String, userID: String, authTime: Date, now: Date) throws -> Bool {
        try write(
            """
            UPDATE device_authorizations SET status = 'approved', user_id = ?, auth_time = ?
            WHERE user_code = ? AND status = 'pending' AND expires_at > ?
            """,
            [.text(userID), .date(authTime), .text(DeviceAuthorization.normalizedUserCode(userCode)), .date(now)],
            referring: "user") > 0
    }

    func denyDeviceAuthorization(userCode: String, now: Date) throws -> Bool {
        try write(
            """
            UPDATE device_authorizations SET status = 'denied'
            WHERE user_code = ? AND status = 'pending' AND expires_at > ?
            """,
            [.text(DeviceAuthorization.normalizedUserCode(userCode)), .date(now)]) > 0
    }

    func pollDeviceAuthorization(deviceCode: String, now: Date) throws -> DevicePoll {
        let hash = SecretHash.digest(deviceCode)
        guard var stored = try deviceAuthorization(deviceCode: deviceCode) else { return .notFound }
        if stored.status == .consumed || Self.isExpired(stored.expiresAt, now: now) { return .expired }
        switch stored.status {
        case .denied:
            return .denied
        case .approved:
            try write(
                """
                UPDATE device_authorizations SET status = 'consumed', last_polled_at = ?
                WHERE device_code_hash = ? AND status = 'approved'
                """,
                [.date(now), .blob(hash)])
            stored.status = .consumed
            stored.lastPolledAt = Self.wholeSeconds(now)
            return .approved(stored)
        case .pending, .consumed:
            let tooSoon = stored.lastPolledAt.map {
                SQLiteValue.seconds(now) - SQLiteValue.seconds($0) < Int64(stored.interval)
            }
            if tooSoon ?? false {
                let interval = stored.interval + 5
                try write(
                    "UPDATE device_authorizations SET interval_seconds = ?, last_polled_at = ? WHERE device_code_hash = ?",
                    [.int(interval), .date(now), .blob(hash)])
                return .slowDown(interval: interval)
            }
            try write(
                "UPDATE device_authorizations SET last_polled_at = ? WHERE device_code_hash = ?",
                [.date(now), .blob(hash)])
            return .pending
        }
    }
}
