import Foundation

/// Native SSO device sessions (``DeviceSession``) and the refresh families issued in them.
///
/// Part of ``StoreTransaction``; see its "Implementation requirements". What ends a session and
/// what ending it revokes is the provider's decision; these are its primitives.
public protocol DeviceSessionStorage {
    /// Stores a device session (its device secret only as a hash).
    func insert(_ session: DeviceSession) throws
    /// The session whose plain device secret is `secret`, whatever its state.
    func deviceSession(secret: String) throws -> DeviceSession?
    /// The session with this id (`sid`), whatever its state.
    func deviceSession(id: String) throws -> DeviceSession?
    /// Stores a new refresh family and its first token, issued in the device session `sessionID`:
    /// ``RefreshTokenStorage/insert(_:token:expiresAt:)`` and
    /// ``linkRefreshFamily(_:toDeviceSession:)`` in one write (a Native SSO exchange's family).
    func insert(_ family: RefreshFamily, token: String, expiresAt: Date, inDeviceSession sessionID: String) throws
    /// Records that the refresh family `familyID` was issued in the device session `sessionID`;
    /// a family is issued in one session, so linking it again is ``StoreError/conflict(_:)``, and
    /// a family or session that does not exist is ``StoreError/missingReference(_:)``.
    func linkRefreshFamily(_ familyID: String, toDeviceSession sessionID: String) throws
    /// The device session the family `familyID` was issued in, if any.
    func deviceSessionID(refreshFamilyID familyID: String) throws -> String?
    /// Whether a refresh family issued in the session is unrevoked and its token unexpired.
    func hasLiveRefreshFamily(deviceSessionID: String, now: Date) throws -> Bool
    /// Revokes a device session, conditionally: false when it was already revoked or is unknown.
    @discardableResult func revokeDeviceSession(id: String, now: Date) throws -> Bool
    /// Revokes every unrevoked refresh family issued in the device session; returns how many.
    @discardableResult func revokeRefreshFamilies(deviceSessionID: String, now: Date) throws -> Int
    /// The unrevoked device sessions begun in the browser session `hashedID`.
    func deviceSessions(browserSessionHashedID hashedID: String) throws -> [DeviceSession]
    /// A person's unrevoked device sessions.
    func deviceSessions(userID: String) throws -> [DeviceSession]
}
