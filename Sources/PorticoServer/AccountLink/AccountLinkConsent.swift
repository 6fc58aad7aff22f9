import Foundation
import PorticoStore

/// The consent page's line for `account_link`: the generic words of ``ScopeCatalog`` do not
/// say *which* mini-programs get the sign-in, and the DESIGN asks that they be named.
enum AccountLinkConsent {
    /// The line for `host`, naming its enabled mini-programs (they are read now, so one
    /// registered later is not hidden behind an old consent; ``standingScopes(of:for:in:)``
    /// asks again once one is, and the link's page in Your Account lists them as they are).
    static func line(for host: Client, in transaction: any StoreTransaction, language: PageLanguage) throws -> String {
        var names: [String] = []
        for miniProgram in try transaction.miniPrograms(hostClientID: host.id) where miniProgram.isEnabled {
            if let client = try transaction.client(id: miniProgram.clientID) { names.append(client.name) }
        }
        return LinkedAccountsText.consentLine(host: host.name, miniPrograms: names)[language]
    }

    /// The scopes `consent` still grants `client` without asking: all of them, except
    /// `account_link` once the host has registered an enabled mini-program after the person's
    /// latest approval, which the page they approved did not name (issue 33). The person is then
    /// asked again, and the page names every mini-program as it stands (``line(for:in:language:)``).
    ///
    /// Whole seconds: a mini-program registered in the very second of the approval counts as
    /// named, so a fresh approval is not asked again at once. Only a page that asked for
    /// `account_link` named the mini-programs, and an approval of other scopes alone moves the
    /// consent's time as well; a host always asks `account_link`, so that gap stays theoretical.
    static func standingScopes(of consent: Consent, for client: Client, in transaction: any StoreTransaction) throws
        -> Set<String>
    {
        guard consent.scopes.contains(AccountLinkScope.name) else { return consent.scopes }
        let approved = StoredTime.seconds(consent.updatedAt)
        let named = try transaction.miniPrograms(hostClientID: client.id).allSatisfy {
            !$0.isEnabled || StoredTime.seconds($0.createdAt) <= approved
        }
        return named ? consent.scopes : consent.scopes.subtracting([AccountLinkScope.name])
    }
}
