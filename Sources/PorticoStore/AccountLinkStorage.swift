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
    /// The link with this `link_id`.
    func accountLink(id: String) throws -> AccountLink?
    /// The link of a platform account in a host app: the other side of the one-to-one pairing.
    func accountLink(hostClientID: String, platformUserID: String) throws -> AccountLink?
    /// Unbinds by `link_id`; conditional: true only for the one caller whose delete removed it.
    @discardableResult func deleteAccountLink(id: String) throws -> Bool
}
