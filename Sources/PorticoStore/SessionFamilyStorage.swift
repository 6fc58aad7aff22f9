import Foundation

/// Which refresh families a browser session issued, and the `sid` their ID tokens carry.
///
/// Part of ``StoreTransaction``; see its "Implementation requirements". The provider records
/// this for clients it must tell of a sign-out (back-channel logout), so that signing one
/// browser out finds every client whose tokens came from it, and so that refreshed ID tokens
/// carry the same `sid` after the browser session itself has ended.
public protocol SessionFamilyStorage {
    /// Records that the refresh family `familyID` came from the browser session `hashedID`,
    /// whose ID tokens carry `sessionID` as `sid`.
    func linkRefreshFamily(_ familyID: String, toBrowserSession hashedID: String, sessionID: String) throws
    /// The `sid` recorded for the family `familyID`, if any.
    func sessionID(refreshFamilyID familyID: String) throws -> String?
    /// The families issued from the browser session `hashedID` (revoked ones too), oldest first.
    func sessionFamilies(browserSessionHashedID hashedID: String) throws -> [SessionFamily]
}
