import PorticoStore

/// The `account_link` scope (DESIGN, "Account link"): the person lets a host app link their
/// account to the host's own user and hand their sign-in to the host's mini-programs.
///
/// Why its own rules: what it grants is exercised by the host's backend (linking, the delegation
/// exchange), which must prove who it is with a secret; a public client could be impersonated by
/// any app that knows its id. So it is only ever granted to confidential clients, which are not
/// themselves mini-programs.
enum AccountLinkScope {
    /// The scope's name.
    static let name = "account_link"

    /// Why `client` may not be given the scope, or nil when it may.
    static func refusal(for client: Client) -> String? {
        client.type == .confidential ? nil : "account_link is only for confidential host apps (with a client secret)."
    }
}
