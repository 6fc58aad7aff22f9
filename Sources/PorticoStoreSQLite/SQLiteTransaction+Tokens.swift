import Foundation
import PorticoCrypto
import PorticoStore

// Refresh-token families and tokens, access-token revocations, device authorizations.
extension SQLiteTransaction {
    // MARK: Refresh-token families

    private static let familyColumns = "id, client_id, user_id, scopes, auth_time, created_at, revoked_at"

    /// The family's columns, then its token state (``TokenState``).
    private static let familyAndTokenColumns =
        familyColumns + ", token_hash, token_issued_at, token_expires_at, previous_token_hash, rotated_at"

    private static func decodeFamily(_ row: SQLiteRow) throws -> RefreshFamily {
        RefreshFamily(
            id: row.text(0), clientID: row.text(1), userID: row.text(2), scopes: try row.list(3),
            authTime: row.date(4), createdAt: row.date(5), revokedAt: row.optionalDate(6))
    }

    /// The token columns of a family row: its current token (none once the migration found
    /// none live) and the one its last rotation replaced.
    private struct TokenState {
        let current: [UInt8]?
        let issuedAt: Date
        let expiresAt: Date
        let previous: [UInt8]?
        let rotatedAt: Date?

        init(_ row: SQLiteRow, offset: Int32) {
            current = row.optionalBlob(offset)
            issuedAt = row.optionalDate(offset + 1) ?? .distantPast
            expiresAt = row.optionalDate(offset + 2) ?? .distantPast
            previous = row.optionalBlob(offset + 3)
            rotatedAt = row.optionalDate(offset + 4)
        }
    }

    func insert(_ family: RefreshFamily, token: String, expiresAt: Date) throws {
        try write(
            "INSERT INTO refresh_families (\(Self.familyAndTokenColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL)",
            [
                .text(family.id), .text(family.clientID), .text(family.userID), .list(family.scopes),
                .date(family.authTime), .date(family.createdAt), .date(family.revokedAt),
                .blob(SecretHash.digest(token)), .date(family.createdAt), .date(expiresAt),
            ], referring: "client or user")
    }

    func refreshFamily(id: String) throws -> RefreshFamily? {
        try first("SELECT \(Self.familyColumns) FROM refresh_families WHERE id = ?", [.text(id)], Self.decodeFamily)
    }

    func refreshFamilies(userID: String, includeRevoked: Bool) throws -> [RefreshFamily] {
        try all(
            """
            SELECT \(Self.familyColumns) FROM refresh_families
            WHERE user_id = ? AND (? OR revoked_at IS NULL) ORDER BY created_at DESC, id
            """,
            [.text(userID), .bool(includeRevoked)], Self.decodeFamily)
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

    /// What a presented token is to its family.
    private enum Standing {
        case current
        case previous(rotatedAt: Date)
        case older
    }

    /// The family a presented token names (through the id it carries, or for a token minted
    /// before tokens carried one, through `legacy_refresh_tokens`), its token state, and what
    /// the token is to it; nil when no family matches.
    private func lookUp(_ presented: String, hash: [UInt8]) throws
        -> (family: RefreshFamily, state: TokenState, standing: Standing)?
    {
        let familyID: String
        if let named = RefreshToken.familyID(of: presented) {
            familyID = String(named)
        } else if let legacy = try first(
            "SELECT family_id FROM legacy_refresh_tokens WHERE token_hash = ?", [.blob(hash)], { $0.text(0) })
        {
            familyID = legacy
        } else {
            return nil
        }
        guard
            let (family, state) = try first(
                "SELECT \(Self.familyAndTokenColumns) FROM refresh_families WHERE id = ?", [.text(familyID)],
                { (try Self.decodeFamily($0), TokenState($0, offset: 7)) })  // after the 7 family columns
        else { return nil }
        let standing: Standing
        if let current = state.current, ConstantTime.equals(current, hash) {
            standing = .current
        } else if let previous = state.previous, ConstantTime.equals(previous, hash), let rotatedAt = state.rotatedAt {
            standing = .previous(rotatedAt: rotatedAt)
        } else {
            standing = .older
        }
        return (family, state, standing)
    }

    func refreshToken(_ token: String) throws -> RefreshToken? {
        let hash = SecretHash.digest(token)
        guard let (family, state, standing) = try lookUp(token, hash: hash) else { return nil }
        let rotatedAt: Date?
        switch standing {
        case .current: rotatedAt = nil
        case .previous(let at): rotatedAt = at
        case .older:
            // A token of this family from before its last rotation: stored nowhere but the
            // legacy table, whose rows say no more than that.
            guard RefreshToken.familyID(of: token) == nil else { return nil }
            rotatedAt = state.rotatedAt ?? family.createdAt
        }
        return RefreshToken(
            hashedToken: SecretHash.reference(bytes: hash), familyID: family.id, issuedAt: state.issuedAt,
            expiresAt: state.expiresAt, rotatedAt: rotatedAt)
    }

    func rotateRefreshToken(
        _ presented: String, expiresAt: Date, now: Date, replacement: (RefreshFamily) throws -> String
    ) throws -> RefreshRotation {
        let hash = SecretHash.digest(presented)
        guard let (family, state, standing) = try lookUp(presented, hash: hash) else { return .notFound }
        if family.isRevoked { return .revoked(family: family) }
        switch standing {
        case .older: return .reused(family: family)
        case .previous(let rotatedAt): return .previous(family: family, rotatedAt: rotatedAt)
        case .current: break
        }
        if Self.isExpired(state.expiresAt, now: now) { return .expired(family: family) }
        let successor = try replacement(family)
        let successorHash = SecretHash.digest(successor)
        // The expected current hash in the WHERE makes the step atomic even if a caller ever
        // rotated outside a write transaction.
        let changed = try write(
            """
            UPDATE refresh_families SET previous_token_hash = token_hash, rotated_at = ?, token_hash = ?,
                token_issued_at = ?, token_expires_at = ?
            WHERE id = ? AND token_hash = ?
            """,
            [.date(now), .blob(successorHash), .date(now), .date(expiresAt), .text(family.id), .blob(hash)])
        if changed == 0 { return .reused(family: family) }
        return .rotated(
            family: family,
            successor: RefreshToken(
                hashedToken: SecretHash.reference(bytes: successorHash), familyID: family.id,
                issuedAt: Self.wholeSeconds(now), expiresAt: Self.wholeSeconds(expiresAt), rotatedAt: nil))
    }

    func supersedeRefreshToken(familyID: String, replacement: String, expiresAt: Date, now: Date) throws -> Bool {
        try write(
            """
            UPDATE refresh_families SET token_hash = ?, token_issued_at = ?, token_expires_at = ?
            WHERE id = ? AND revoked_at IS NULL AND previous_token_hash IS NOT NULL
            """,
            [.blob(SecretHash.digest(replacement)), .date(now), .date(expiresAt), .text(familyID)]) > 0
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
