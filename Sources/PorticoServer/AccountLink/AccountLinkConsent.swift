import PorticoStore

/// The consent page's line for `account_link`: the generic words of ``ScopeCatalog`` do not
/// say *which* mini-programs get the sign-in, and the DESIGN asks that they be named.
enum AccountLinkConsent {
    /// The line for `host`, naming its enabled mini-programs (they are read now, so one
    /// registered later is not hidden behind an old consent: consent is asked per scope, and
    /// the link's page in Your Account lists them as they are).
    static func line(for host: Client, in transaction: any StoreTransaction, language: PageLanguage) throws -> String {
        var names: [String] = []
        for miniProgram in try transaction.miniPrograms(hostClientID: host.id) where miniProgram.isEnabled {
            if let client = try transaction.client(id: miniProgram.clientID) { names.append(client.name) }
        }
        return LinkedAccountsText.consentLine(host: host.name, miniPrograms: names)[language]
    }
}
