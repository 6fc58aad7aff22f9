import Foundation
import PorticoKit

#if canImport(Glibc)
    import Glibc
#endif

/// The agent's own sign-in: its companion client's grant (scope `openid companion`) in the
/// file token store; the refresh token is the companion session the provider lists in Your
/// Account.
final class AgentAccount: Sendable {
    /// `openid companion`, and `profile` so the agent can say who signed in.
    static let scopes: [Scope] = [.openID, .profile, Scope(name: "companion")]

    let provider: Provider
    let manager: AuthorizationManager
    let store: FileTokenStore

    init(provider: Provider, clientID: String, environment: [String: String], userAgent: any UserAgent) {
        self.provider = provider
        let base =
            environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
            ?? URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory()).appendingPathComponent(".config")
        store = FileTokenStore(directory: base.appendingPathComponent("portico-agent"))
        manager = AuthorizationManager(
            provider: provider, clientID: clientID, redirectURI: URL(string: "http://127.0.0.1/callback"),
            store: store, userAgent: userAgent,
            // The provider's companion endpoints take the agent's token as a bearer token only.
            usesDPoP: false)
    }

    /// Whether a grant is stored (it may still have been ended at the provider).
    var isSignedIn: Bool { (try? store.grant(for: manager.storeKey)) != nil }

    /// The grant as stored.
    var grant: StoredGrant? { try? store.grant(for: manager.storeKey) }

    /// The signed-in person's name as best known: the profile's name, the ID token's, the
    /// e-mail address, the account id.
    var personName: String? {
        guard let grant else { return nil }
        let claims = grant.idTokenClaims ?? [:]
        return grant.user?.name ?? claims["name"]?.stringValue ?? grant.user?.email ?? claims["email"]?.stringValue
            ?? claims["sub"]?.stringValue
    }

    /// The signed-in person's account id.
    var subject: String? { grant?.idTokenClaims?["sub"]?.stringValue ?? grant?.user?.userID }

    /// Signs in interactively, always showing the provider's pages.
    func login() async throws(AuthorizationError) {
        var request = AuthorizeRequest(scopes: Self.scopes, interactiveStrategy: .always)
        // Your Account lists the session as "Portico agent on <host name>".
        request.tokenParameters = ["agent_host": Self.hostName]
        _ = try await manager.authorize(request)
    }

    /// This computer's name (`gethostname`), without a DNS lookup.
    static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "this computer" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "this computer" : name
    }

    /// An access token for the companion endpoints, refreshed when near expiry.
    func accessToken() async throws(AuthorizationError) -> String {
        try await manager.validAccessToken()
    }

    /// A new access token, after the provider refused the current one.
    func refreshedAccessToken() async throws(AuthorizationError) -> String {
        try await manager.forceRefresh()
    }

    /// Forgets the grant here only: the provider already ended the session.
    func forgetEndedSession() {
        try? store.removeGrant(for: manager.storeKey)
    }

    /// Revokes the tokens at the provider and forgets them.
    func logout() async throws(AuthorizationError) {
        try await manager.signOut()
    }
}
