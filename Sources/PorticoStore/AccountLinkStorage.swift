import Foundation

/// Links between host-app users and platform accounts.
///
/// Part of ``StoreTransaction``; see its "Implementation requirements".
public protocol AccountLinkStorage {
    /// Links a host app's user to a platform account.
    func insert(_ link: AccountLink) throws
    /// The link of a host user in a host app.
    func accountLink(hostClientID: String, hostUserID: String) throws -> AccountLink?
    /// Every host app account linked to a platform account.
    func accountLinks(platformUserID: String) throws -> [AccountLink]
    /// Unbinds a host user.
    @discardableResult func deleteAccountLink(hostClientID: String, hostUserID: String) throws -> Bool
}
