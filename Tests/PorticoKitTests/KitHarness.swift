import Foundation
import PorticoServer
import PorticoStore
import PorticoTesting

@testable import PorticoKit

/// The SDK tests' view of a ``ProviderHarness``: the same real provider, with the few things
/// the SDK tests add (an `AuthorizationManager` wired to it, answers parsed with the SDK's own
/// JSON type, people with addresses of their own). It starts nothing itself.
struct KitHarness: Sendable {
    /// The provider harness underneath.
    let provider: ProviderHarness
    /// The password every person made by ``addUser(name:postalCode:)`` signs in with.
    let password = ProviderHarness.defaultPassword

    var server: IdentityProvider { provider.provider }
    var store: any Store { provider.store }
    var directory: URL { provider.directory }
    var issuer: URL { URL(string: provider.issuer)! }

    /// Runs `body` against a fresh provider and always stops it.
    static func with(
        configuration: ProviderConfiguration = .testing(), _ body: (KitHarness) async throws -> Void
    ) async throws {
        try await ProviderHarness.with(configuration: configuration) { try await body(KitHarness(provider: $0)) }
    }

    /// A person who can sign in with ``password``, with an address of their own.
    @discardableResult
    func addUser(name: String = "Ann Example", postalCode: String? = "10115") throws -> UserRecord {
        try provider.addUser(
            email: "ann-\(UUID().uuidString.prefix(8).lowercased())@example.com", name: name, postalCode: postalCode)
    }

    /// A public native app with the loopback redirect URI (any port matches).
    func addPublicClient(
        redirectURIs: [String] = ["http://127.0.0.1/callback"],
        grants: [String] = ["authorization_code", "refresh_token"]
    ) throws -> Client {
        try provider.addPublicClient(name: "Kit Test App", redirectURIs: redirectURIs, grants: grants)
    }

    /// A public native app that may ask for tokens meant for `resources` (RFC 8707).
    func addPublicClient(resources: [String]) throws -> Client {
        var client = Client(
            name: "Kit Resource App", type: .public, redirectURIs: ["http://127.0.0.1/callback"],
            allowedScopes: ProviderHarness.allScopes)
        client.resources = resources
        try store.insert(client)
        return client
    }

    /// A confidential client (secret `secret`), used only to introspect tokens.
    func addResourceServer() throws -> Client {
        try provider.addClient(
            name: "Resource Server", redirectURIs: ["https://rs.example/callback"], scopes: ["openid"],
            grants: ["client_credentials"], privacyURL: nil, introspection: true)
    }

    /// A manager for `client` on the discovered provider.
    func manager(
        for client: Client, store tokenStore: any TokenStore = InMemoryTokenStore(), userAgent: any UserAgent,
        refreshTimeout: TimeInterval = 30, usesDPoP: Bool = true,
        pushedAuthorization: PushedAuthorizationMode = .whenAdvertised
    ) async throws -> AuthorizationManager {
        let provider = try await Provider.discover(issuer: issuer)
        return AuthorizationManager(
            provider: provider, clientID: client.id, redirectURI: URL(string: client.redirectURIs[0]),
            store: tokenStore, userAgent: userAgent, refreshTimeout: refreshTimeout, usesDPoP: usesDPoP,
            pushedAuthorization: pushedAuthorization)
    }

    /// POSTs a form to the provider (`path` without a leading slash) without client
    /// authentication headers, the answer read with the SDK's JSON type.
    func post(_ path: String, _ fields: [(String, String)]) async throws -> (status: Int, json: [String: ProfileValue])
    {
        let reply = try await provider.post("/" + path, fields)
        return (reply.status, ProfileValue(parsing: Array(reply.body))?.objectValue ?? [:])
    }

    /// Whether a resource server is told `accessToken` is active.
    func isActive(accessToken: String, introspectingAs resourceServer: Client) async throws -> Bool {
        let reply = try await post(
            "oauth/introspect", [("token", accessToken), ("client_id", resourceServer.id), ("client_secret", "secret")])
        guard reply.status == 200 else { throw HarnessFailure("introspection said \(reply.status)") }
        return reply.json["active"]?.boolValue ?? false
    }

    /// Whether exactly one rotation led from the refresh token `earlier` to `current`: the
    /// provider keeps, per family, the current token and the one its last rotation replaced.
    func oneRotation(from earlier: String?, to current: String?) throws -> Bool {
        guard let earlier, let current, earlier != current,
            let replaced = try store.read({ try RefreshTokenPolicy.token(earlier, in: $0) }),
            let now = try store.read({ try RefreshTokenPolicy.token(current, in: $0) })
        else { return false }
        return replaced.rotatedAt != nil && now.rotatedAt == nil && replaced.familyID == now.familyID
    }
}
