import Foundation
import PorticoStore

// Native SSO device sessions, pairwise subjects and provider secrets.
@usableFromInline let deviceSessionColumns = """
    id, secret_hash, user_id, sso_group, browser_session_hash, scopes, auth_time, created_at, revoked_at
    """

extension SQLTransaction {
    // MARK: Device sessions

    @usableFromInline static func decodeDeviceSession(_ row: Row) throws -> DeviceSession {
        DeviceSession(
            id: try row.text("id"), secretHashReference: try row.hashReference("secret_hash"),
            userID: try row.text("user_id"), ssoGroup: try row.text("sso_group"),
            browserSessionHashedID: try row.optionalHashReference("browser_session_hash"),
            scopes: try row.list("scopes"), authTime: try row.date("auth_time"), createdAt: try row.date("created_at"),
            revokedAt: try row.optionalDate("revoked_at"))
    }

    /// ``DeviceSessionStorage/insert(_:)``, for every SQL backend.
    @inlinable public func insert(_ session: DeviceSession) throws {
        try write(
            "INSERT INTO device_sessions (\(deviceSessionColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                .text(session.id), .hash(reference: session.secretHashReference), .text(session.userID),
                .text(session.ssoGroup), .hash(reference: session.browserSessionHashedID), .list(session.scopes),
                .date(session.authTime), .date(session.createdAt), .date(session.revokedAt),
            ], referring: "user")
    }

    /// ``DeviceSessionStorage/deviceSession(secret:)``, for every SQL backend.
    @inlinable public func deviceSession(secret: String) throws -> DeviceSession? {
        try first(
            "SELECT \(deviceSessionColumns) FROM device_sessions WHERE secret_hash = ?",
            [.digest(secret)], Self.decodeDeviceSession)
    }

    /// ``DeviceSessionStorage/deviceSession(id:)``, for every SQL backend.
    @inlinable public func deviceSession(id: String) throws -> DeviceSession? {
        try first(
            "SELECT \(deviceSessionColumns) FROM device_sessions WHERE id = ?", [.text(id)],
            Self.decodeDeviceSession)
    }

    /// ``DeviceSessionStorage/linkRefreshFamily(_:toDeviceSession:)``, for every SQL backend.
    @inlinable public func linkRefreshFamily(_ familyID: String, toDeviceSession sessionID: String) throws {
        // A column of the family's row since version 15.
        let changed = try write(
            "UPDATE refresh_families SET device_session_id = ? WHERE id = ? AND device_session_id IS NULL",
            [.text(sessionID), .text(familyID)], referring: "refresh family or device session")
        guard changed == 0 else { return }
        // Linked already (a family is issued in one session), or no such family.
        if try deviceSessionID(refreshFamilyID: familyID) != nil {
            throw StoreError.conflict("the refresh family belongs to a device session already")
        }
        throw StoreError.missingReference("refresh family or device session")
    }

    /// ``DeviceSessionStorage/deviceSessionID(refreshFamilyID:)``, for every SQL backend.
    @inlinable public func deviceSessionID(refreshFamilyID familyID: String) throws -> String? {
        try first(
            "SELECT device_session_id FROM refresh_families WHERE id = ? AND device_session_id IS NOT NULL",
            [.text(familyID)]
        ) { try $0.text("device_session_id") }
    }

    /// ``DeviceSessionStorage/hasLiveRefreshFamily(deviceSessionID:now:)``, for every SQL backend.
    @inlinable public func hasLiveRefreshFamily(deviceSessionID: String, now: Date) throws -> Bool {
        try first(
            """
            SELECT 1 FROM refresh_families
            WHERE device_session_id = ? AND revoked_at IS NULL AND token_expires_at > ? LIMIT 1
            """,
            [.text(deviceSessionID), .date(now)]
        ) { _ in true } ?? false
    }

    /// ``DeviceSessionStorage/revokeDeviceSession(id:now:)``, for every SQL backend.
    @inlinable public func revokeDeviceSession(id: String, now: Date) throws -> Bool {
        try write(
            "UPDATE device_sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", [.date(now), .text(id)])
            > 0
    }

    /// ``DeviceSessionStorage/revokeRefreshFamilies(deviceSessionID:now:)``, for every SQL backend.
    @inlinable public func revokeRefreshFamilies(deviceSessionID: String, now: Date) throws -> Int {
        try write(
            """
            UPDATE refresh_families SET revoked_at = ?
            WHERE device_session_id = ? AND revoked_at IS NULL
            """,
            [.date(now), .text(deviceSessionID)])
    }

    /// ``DeviceSessionStorage/deviceSessions(browserSessionHashedID:)``, for every SQL backend.
    @inlinable public func deviceSessions(browserSessionHashedID hashedID: String) throws -> [DeviceSession] {
        try all(
            """
            SELECT \(deviceSessionColumns) FROM device_sessions
            WHERE browser_session_hash = ? AND revoked_at IS NULL ORDER BY created_at, id
            """,
            [.hash(reference: hashedID)], Self.decodeDeviceSession)
    }

    /// ``DeviceSessionStorage/deviceSessions(userID:)``, for every SQL backend.
    @inlinable public func deviceSessions(userID: String) throws -> [DeviceSession] {
        try all(
            """
            SELECT \(deviceSessionColumns) FROM device_sessions
            WHERE user_id = ? AND revoked_at IS NULL ORDER BY created_at, id
            """,
            [.text(userID)], Self.decodeDeviceSession)
    }

    // MARK: Pairwise subjects and provider secrets

    /// ``PairwiseSubjectStorage/providerSecret(name:candidate:)``, for every SQL backend.
    @inlinable public func providerSecret(name: String, candidate: [UInt8]) throws -> [UInt8] {
        try write(
            "INSERT INTO provider_secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
            [.text(name), .bytes(candidate)])
        return try first("SELECT value FROM provider_secrets WHERE name = ?", [.text(name)]) { try $0.bytes("value") }
            ?? candidate
    }

    /// ``PairwiseSubjectStorage/recordPairwiseSubject(_:sector:userID:)``, for every SQL backend.
    @inlinable public func recordPairwiseSubject(_ subject: String, sector: String, userID: String) throws {
        try write(
            """
            INSERT INTO pairwise_subjects (sector, subject, user_id) VALUES (?, ?, ?)
            ON CONFLICT (sector, subject) DO NOTHING
            """,
            [.text(sector), .text(subject), .text(userID)], referring: "user")
    }

    /// ``PairwiseSubjectStorage/userID(pairwiseSubject:sector:)``, for every SQL backend.
    @inlinable public func userID(pairwiseSubject subject: String, sector: String) throws -> String? {
        try first(
            "SELECT user_id FROM pairwise_subjects WHERE sector = ? AND subject = ?", [.text(sector), .text(subject)]
        ) { try $0.text("user_id") }
    }
}
