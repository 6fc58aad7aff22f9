import PorticoStore

/// The rules of `portico client add --companion`: the platform's own `portico-agent`, a public
/// client that signs the person in once with a loopback browser redirect (RFC 8252 §7.3) or the
/// device grant (`--device`), keeps a refresh token as its companion session, and is the only
/// kind of client granted the `companion` scope.
///
/// Only the command line registers one (``ClientRegistration/isCompanion``); nothing an app can
/// call over HTTP marks a client as a companion.
struct CompanionRegistration {
    /// The loopback redirect URI a companion gets when none is given; the agent may use any
    /// port on it (RFC 8252 §7.3).
    static let defaultRedirectURI = "http://127.0.0.1/callback"
    /// Its grants: the browser sign-in, the device sign-in, and refreshing the session.
    static let grantTypes = [AuthorizationCodeGrant.grantType, DeviceCodeGrant.grantType, RefreshTokenGrant.grantType]
    /// Its scopes when none are given.
    static let defaultScopes = ["openid", "profile", "email", CompanionClients.scope]

    /// What the operator asked for.
    let registration: ClientRegistration

    init(_ registration: ClientRegistration) {
        self.registration = registration
    }

    /// The companion client these values describe, or why they are not acceptable.
    func validatedClient(id: String, store: any Store) throws(AdminError) -> Client {
        var plain = registration
        plain.isCompanion = false
        if plain.ssoGroup != nil { throw .invalid("a companion client cannot be in an SSO group (--sso-group)") }
        if plain.subjectType.lowercased() != SubjectType.public.rawValue {
            throw .invalid("a companion client sees public subjects; drop --subject-type")
        }
        let grants = plain.grantTypes.map { ClientRegistration.grantTypeAliases[$0] ?? $0 }
        if !grants.isEmpty && Set(grants) != Set(Self.grantTypes) {
            throw .invalid(
                "a companion client uses exactly the grants \(Self.grantTypes.joined(separator: ", ")); drop --grant")
        }
        plain.isPublic = true
        plain.grantTypes = Self.grantTypes
        if plain.redirectURIs.isEmpty { plain.redirectURIs = [Self.defaultRedirectURI] }
        let scopes = plain.scopes.isEmpty ? Self.defaultScopes : plain.scopes
        if !scopes.contains(CompanionClients.scope) {
            throw .invalid("a companion client needs the companion scope; add --scope companion")
        }
        plain.scopes = scopes.filter { $0 != CompanionClients.scope }
        var client = try plain.validatedClient(id: id, secret: nil, store: store)
        client.allowedScopes.append(CompanionClients.scope)
        return client
    }
}
