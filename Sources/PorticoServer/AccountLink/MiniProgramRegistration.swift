import Foundation
import PorticoStore

/// The mini-program half of ``ClientRegistration`` (`portico client add --mini-program-of HOST`).
///
/// A mini-program has no redirect URI, no secret and no grant of its own: it runs inside its
/// host app and gets a person's sign-in only through the host's delegation exchange (DESIGN,
/// "Token exchange", profile 1). Its scopes bound what a delegated token may carry.
extension ClientRegistration {
    /// Scopes a mini-program can never be registered for: they belong to a host or a group.
    static let scopesNotForMiniPrograms: Set<String> = [
        AccountLinkScope.name, NativeSSO.scope, "offline_access", CompanionClients.scope,
    ]

    /// Refuses the options a mini-program cannot have; the first reason, as one line.
    func checkMiniProgramOptions() throws(AdminError) {
        guard miniProgramOf != nil else { return }
        if !redirectURIs.isEmpty {
            throw .invalid("a mini-program takes no --redirect-uri: it signs in through its host app")
        }
        if !grantTypes.isEmpty { throw .invalid("a mini-program takes no --grant: its host exchanges tokens for it") }
        if ssoGroup != nil { throw .invalid("a mini-program takes no --sso-group") }
        if isCompanion { throw .invalid("a mini-program cannot be a --companion") }
        if backchannelLogoutURI != nil {
            throw .invalid("a mini-program takes no --backchannel-logout-uri: its host is told")
        }
        if !postLogoutRedirectURIs.isEmpty { throw .invalid("a mini-program takes no --post-logout-redirect-uri") }
        if let scope = scopes.first(where: Self.scopesNotForMiniPrograms.contains) {
            throw .invalid("a mini-program cannot have the scope \(scope)")
        }
    }

    /// The built-in scopes a mini-program gets when none are named.
    static var defaultMiniProgramScopes: [String] {
        ScopeCatalog.builtIn.map(\.name).filter { !scopesNotForMiniPrograms.contains($0) }
    }

    /// Records `client` as a mini-program of its host, inside the registration's transaction.
    ///
    /// - Throws: a one-line ``AdminError`` when the host is unknown, public, disabled or itself
    ///   a mini-program.
    func attachMiniProgram(_ client: Client, in transaction: any StoreTransaction) throws {
        guard let hostID = miniProgramOf else { return }
        guard let host = try transaction.client(id: hostID) else {
            throw AdminError.notFound("no client with id \(hostID) to be the host of a mini-program")
        }
        if try transaction.miniProgram(clientID: hostID) != nil {
            throw AdminError.invalid("the host \(hostID) is itself a mini-program")
        }
        guard host.type == .confidential else {
            throw AdminError.invalid(
                "the host \(hostID) is a public client; a host app must be confidential (it links accounts from its backend)"
            )
        }
        try transaction.insert(MiniProgram(clientID: client.id, hostClientID: hostID, createdAt: client.createdAt))
    }
}
