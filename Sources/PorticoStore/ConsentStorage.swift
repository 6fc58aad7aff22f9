import Foundation

/// What each person has allowed each app.
///
/// Part of ``StoreTransaction``; see its "Implementation requirements".
public protocol ConsentStorage {
    /// What `userID` has allowed `clientID`.
    func consent(userID: String, clientID: String) throws -> Consent?
    /// Makes `scopes` the consent of `userID` for `clientID`, updated at `now` (created then if
    /// there was none; an existing one keeps its creation time), as one upsert. Granting more
    /// (the union with what was allowed before) is the provider's step on top.
    func saveConsent(userID: String, clientID: String, scopes: Set<String>, now: Date) throws
    /// Removes the whole consent.
    @discardableResult func revokeConsent(userID: String, clientID: String) throws -> Bool
    /// Every app a person has authorized, for the account page.
    func consents(userID: String) throws -> [Consent]
}
