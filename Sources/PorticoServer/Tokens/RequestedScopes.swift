import PorticoStore

/// The rules a requested `scope` must meet outside the authorization endpoint (the device
/// authorization endpoint and its Login with Amazon twin): at least one scope, each known to
/// the provider and allowed to the client.
///
/// They are the same rules ``AuthorizationRequestValidator`` applies, so an app gets the same
/// answer whether it asks through a browser redirect or from a TV.
enum RequestedScopes {
    /// The distinct scopes of `parameter`, checked for `client`.
    ///
    /// - Throws: `invalid_scope` naming the first scope that is unknown or not allowed.
    static func validated(_ parameter: String?, for client: Client, in store: any Store) throws -> [String] {
        let scopes = ScopeCatalog.parse(parameter)
        guard !scopes.isEmpty else { throw OAuthError.invalidScope("The request must name at least one scope.") }
        let supported = Set(try store.read { try ScopeCatalog.supportedNames(in: $0) })
        if let unknown = scopes.first(where: { !supported.contains($0) }) {
            throw OAuthError.invalidScope("The scope \(unknown) is not known.")
        }
        let allowed = client.allowedScopes.isEmpty ? ScopeCatalog.builtInNames : Set(client.allowedScopes)
        if let refused = scopes.first(where: { !allowed.contains($0) }) {
            throw OAuthError.invalidScope("This client may not request the scope \(refused).")
        }
        if scopes.contains(AccountLinkScope.name), let refusal = AccountLinkScope.refusal(for: client) {
            throw OAuthError.invalidScope(refusal)
        }
        if scopes.contains(CompanionClients.scope),
            try !store.read({ try CompanionClients.permits(scopes, to: client, in: $0) })
        {
            throw OAuthError.invalidScope(CompanionClients.refusal)
        }
        return scopes
    }
}
