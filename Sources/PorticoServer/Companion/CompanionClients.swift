import PorticoStore

/// The rule of the `companion` scope: only a first-party companion client (registered with
/// `portico client add --companion`, never by anything an app can call) may be granted it,
/// because a token with it can obtain authorization codes for any app on the person's behalf.
///
/// The authorization endpoint, the device authorization endpoint and client registration all
/// ask here, so the rule is stated once.
enum CompanionClients {
    /// The scope of a companion session.
    static let scope = "companion"

    /// The `invalid_scope` description when a client that is not a companion asks for it.
    static let refusal = "The companion scope is only for the platform's own companion app."

    /// Whether `scopes` may be granted to `client`: true unless they name `companion` and the
    /// client is not a companion client.
    static func permits(_ scopes: [String], to client: Client, in transaction: any StoreTransaction) throws -> Bool {
        guard scopes.contains(scope) else { return true }
        return try transaction.isCompanionClient(id: client.id)
    }
}
