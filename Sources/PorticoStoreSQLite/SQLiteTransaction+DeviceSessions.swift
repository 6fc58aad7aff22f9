import Foundation
import PorticoStore
import PorticoStoreSQL

// Native SSO device sessions, pairwise subjects and provider secrets.
extension SQLiteTransaction {
    // MARK: Device sessions

    private static let deviceSessionColumns = """
        id, secret_hash, user_id, sso_group, browser_session_hash, scopes, auth_time, created_at, revoked_at
        """

    private static func decodeDeviceSession(_ row: SQLiteRow) throws -> DeviceSession {
        DeviceSession(
            id: row.text(0), secretHashReference: row.hashReference(1), userID: row.text(2), ssoGroup: row.text(3),
            browserSessionHashedID: row.optionalHashReference(4), scopes: try row.list(5), authTime: row.date(6),
            createdAt: row.date(7), revokedAt: row.optionalDate(8))
    }

    func insert(_ session: DeviceSession) throws {
        try write(
            "INSERT INTO device_sessions (\(Self.deviceSessionColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                .text(session.id), .hash(reference: session.secretHashReference), .text(session.userID),
                .text(session.ssoGroup), .hash(reference: session.browserSessionHashedID), .list(session.scopes),
                .date(session.authTime), .date(session.createdAt), .date(session.revokedAt),
            ], referring: "user")
    }

    func deviceSession(secret: String) throws -> DeviceSession? {
        try first(
            "SELECT \(Self.deviceSessionColumns) FROM device_sessions WHERE secret_hash = ?",
            [.bytes(SecretHash.digest(secret))], Self.decodeDeviceSession)
    }

    func deviceSession(id: String) throws -> DeviceSession? {
        try first(
            "SELECT \(Self.deviceSessionColumns) FROM device_sessions WHERE id = ?", [.text(id)],
            Self.decodeDeviceSession)
    }

    func linkRefreshFamily(_ familyID: String, toDeviceSession sessionID: String) throws {
        // A column of the family's row since version 15 (its page is being written anyway).
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

    func deviceSessionID(refreshFamilyID familyID: String) throws -> String? {
        try first(
            "SELECT device_session_id FROM refresh_families WHERE id = ? AND device_session_id IS NOT NULL",
            [.text(familyID)]
        ) { $0.text(0) }
    }

    func hasLiveRefreshFamily(deviceSessionID: String, now: Date) throws -> Bool {
        try first(
            """
            SELECT 1 FROM refresh_families
            WHERE device_session_id = ? AND revoked_at IS NULL AND token_expires_at > ? LIMIT 1
            """,
            [.text(deviceSessionID), .date(now)]
        ) { _ in true } ?? false
    }

    func revokeDeviceSession(id: String, now: Date) throws -> Bool {
        try write(
            "UPDATE device_sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", [.date(now), .text(id)])
            > 0
    }

    func revokeRefreshFamilies(deviceSessionID: String, now: Date) throws -> Int {
        try write(
            """
            UPDATE refresh_families SET revoked_at = ?
            WHERE device_session_id = ? AND revoked_at IS NULL
            """,
            [.date(now), .text(deviceSessionID)])
    }

    func deviceSessions(browserSessionHashedID hashedID: String) throws -> [DeviceSession] {
        try all(
            """
            SELECT \(Self.deviceSessionColumns) FROM device_sessions
            WHERE browser_session_hash = ? AND revoked_at IS NULL ORDER BY created_at, id
            """,
            [.hash(reference: hashedID)], Self.decodeDeviceSession)
    }

    func deviceSessions(userID: String) throws -> [DeviceSession] {
        try all(
            """
            SELECT \(Self.deviceSessionColumns) FROM device_sessions
            WHERE user_id = ? AND revoked_at IS NULL ORDER BY created_at, id
            """,
            [.text(userID)], Self.decodeDeviceSession)
    }

    // MARK: Pairwise subjects and provider secrets

    func providerSecret(name: String, candidate: [UInt8]) throws -> [UInt8] {
        try write(
            "INSERT INTO provider_secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
            [.text(name), .bytes(candidate)])
        return try first("SELECT value FROM provider_secrets WHERE name = ?", [.text(name)]) { $0.blob(0) }
            ?? candidate
    }

    func recordPairwiseSubject(_ subject: String, sector: String, userID: String) throws {
        try write(
            """
            INSERT INTO pairwise_subjects (sector, subject, user_id) VALUES (?, ?, ?)
            ON CONFLICT (sector, subject) DO NOTHING
            """,
            [.text(sector), .text(subject), .text(userID)], referring: "user")
    }

    func userID(pairwiseSubject subject: String, sector: String) throws -> String? {
        try first(
            "SELECT user_id FROM pairwise_subjects WHERE sector = ? AND subject = ?", [.text(sector), .text(subject)]
        ) { $0.text(0) }
    }
}
