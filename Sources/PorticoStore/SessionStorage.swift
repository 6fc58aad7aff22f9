import Foundation

/// Browser sign-in sessions, found by the hash of their cookie value.
///
/// Part of ``StoreTransaction``; see its "Implementation requirements".
public protocol SessionStorage {
    /// Stores a session.
    func insert(_ session: BrowserSession) throws
    /// The unexpired session whose cookie value is `token`.
    func session(token: String, now: Date) throws -> BrowserSession?
    /// Records activity on a session and optionally extends it; false if there is none.
    @discardableResult func touchSession(token: String, lastSeenAt: Date, expiresAt: Date?) throws -> Bool
    /// A person's sessions (expired ones included until purged), newest first.
    func sessions(userID: String) throws -> [BrowserSession]
    /// Ends the session whose cookie value is `token` (sign-out).
    @discardableResult func deleteSession(token: String) throws -> Bool
    /// Ends a session picked from a listing by its hashed id ("sign out that device").
    @discardableResult func deleteSession(hashedID: String) throws -> Bool
    /// Ends every session of a person ("sign out everywhere"); returns how many.
    @discardableResult func deleteSessions(userID: String) throws -> Int
}
