import Foundation
import PorticoHTTP
import PorticoStore

/// How a client proved who it is at the token, revocation or introspection endpoint.
enum ClientAuthenticationMethod: String, Sendable, CaseIterable {
    /// `Authorization: Basic` with the form-urlencoded id and secret (RFC 6749 §2.3.1).
    case clientSecretBasic = "client_secret_basic"
    /// `client_id` and `client_secret` in the form body.
    case clientSecretPost = "client_secret_post"
    /// A JWT signed with the client's registered private key (RFC 7523 §2.2, OIDC Core §9).
    case privateKeyJWT = "private_key_jwt"
    /// A public client naming itself with `client_id`; PKCE (or rotation) is its proof.
    case none
}

/// A client whose identity the request established.
struct AuthenticatedClient: Sendable {
    /// The registered client.
    let client: Client
    /// How it authenticated.
    let method: ClientAuthenticationMethod

    /// Whether it proved possession of a secret (a confidential client).
    var isConfidential: Bool { method != .none }
}

/// Client authentication for the back-channel endpoints (RFC 6749 §2.3, OAuth 2.1 §2.4).
///
/// Why a type of its own: the token, revocation and introspection endpoints must apply exactly
/// the same rules: one method per request (a secret, a `private_key_jwt` assertion — see
/// ``ClientAssertionVerifier`` — or none for a public client), secrets compared in constant time (by
/// `Client.verifiesSecret`), a confidential client always authenticates, and every failure is
/// the same `invalid_client` 401, with a `Basic` challenge when the client tried Basic, so a
/// caller learns nothing about which client ids exist.
struct ClientAuthenticator {
    /// Where clients are registered.
    let store: any Store
    /// Recently read clients; without it every request reads the store.
    var cache: ClientCache? = nil
    /// Checks `private_key_jwt` assertions; without it they are refused.
    var assertions: ClientAssertionVerifier? = nil
    /// Whether to read clients from the cache alone: a client not in memory, and any assertion
    /// (its `jti` is recorded in the store), throw ``NotInMemory`` instead of waiting on the store.
    var memoryOnly = false
    /// Makes or refreshes the clients whose `client_id` is a client metadata document's URL;
    /// without it such an id names no client unless its row exists.
    var metadataDocuments: ClientMetadataDocuments? = nil
    /// The clock a rotated secret's overlap is judged by (the provider's, which tests move).
    var now: @Sendable () -> Date = { Date() }

    /// What a ``memoryOnly`` authenticator throws when it would need the store.
    struct NotInMemory: Error {}

    /// This authenticator reading clients from the cache alone (see ``memoryOnly``).
    var fromMemory: ClientAuthenticator {
        var copy = self
        copy.memoryOnly = true
        return copy
    }

    /// Establishes which client sent `request`.
    ///
    /// - Throws: `invalid_request` for two methods at once (or a body `client_id` that
    ///   contradicts Basic), `invalid_client` for anything that does not authenticate.
    func authenticate(_ request: Request, parameters: OAuthParameters) throws -> AuthenticatedClient {
        let authenticated = try authenticateCredentials(request, parameters: parameters)
        // After the credentials, so a suspension is told only to the app itself.
        if authenticated.client.suspendedAt != nil {
            throw OAuthError.invalidClient("This app is suspended by the platform's operator.")
        }
        return authenticated
    }

    private func authenticateCredentials(_ request: Request, parameters: OAuthParameters) throws
        -> AuthenticatedClient
    {
        if parameters["client_assertion"] != nil || parameters["client_assertion_type"] != nil {
            return try authenticateAssertion(request, parameters: parameters)
        }
        if let authorization = request.headers["Authorization"] {
            return try authenticateBasic(authorization, parameters: parameters)
        }
        guard let clientID = parameters["client_id"] else {
            throw OAuthError.invalidClient("Client authentication is required.")
        }
        guard let client = try lookUp(clientID) else {
            throw OAuthError.invalidClient("Client authentication failed.")
        }
        if let secret = parameters["client_secret"] {
            guard client.type == .confidential, client.verifiesSecret(secret, at: now()) else {
                throw OAuthError.invalidClient("Client authentication failed.")
            }
            return AuthenticatedClient(client: client, method: .clientSecretPost)
        }
        guard client.type == .public else {
            throw OAuthError.invalidClient("This client must authenticate with its secret.")
        }
        return AuthenticatedClient(client: client, method: .none)
    }

    private func authenticateBasic(_ authorization: String, parameters: OAuthParameters) throws
        -> AuthenticatedClient
    {
        let failure = OAuthError.invalidClient("Client authentication failed.", challengeBasic: true)
        guard let raw = BasicCredentials(authorization: authorization) else { throw failure }
        let credentials: BasicCredentials
        do {
            credentials = try raw.formURLDecoded()
        } catch {
            throw failure
        }
        if parameters["client_secret"] != nil {
            throw OAuthError.invalidRequest("Use one client authentication method, not two.")
        }
        if let bodyID = parameters["client_id"], bodyID != credentials.user {
            throw OAuthError.invalidRequest("The client_id does not match the authenticated client.")
        }
        guard !credentials.user.isEmpty, let client = try lookUp(credentials.user) else { throw failure }
        // A public client has no secret: some libraries still send Basic with an empty one.
        if client.type == .public && credentials.password.isEmpty {
            return AuthenticatedClient(client: client, method: .none)
        }
        guard client.type == .confidential, client.verifiesSecret(credentials.password, at: now()) else {
            throw failure
        }
        return AuthenticatedClient(client: client, method: .clientSecretBasic)
    }

    private func authenticateAssertion(_ request: Request, parameters: OAuthParameters) throws
        -> AuthenticatedClient
    {
        if request.headers["Authorization"] != nil || parameters["client_secret"] != nil {
            throw OAuthError.invalidRequest("Use one client authentication method, not two.")
        }
        if memoryOnly { throw NotInMemory() }
        guard let assertions else { throw OAuthError.invalidClient("Client assertions are not accepted here.") }
        let client = try assertions.authenticate(
            type: parameters["client_assertion_type"], assertion: parameters["client_assertion"],
            clientID: parameters["client_id"], lookUp: lookUp)
        return AuthenticatedClient(client: client, method: .privateKeyJWT)
    }

    private func lookUp(_ id: String) throws -> Client? {
        if let metadataDocuments, ClientMetadataDocuments.isDocumentURL(id) {
            if memoryOnly { throw NotInMemory() }
            do {
                try metadataDocuments.refresh(id, fetchingNew: false)
            } catch {
                throw OAuthError.invalidClient("The client is not usable: \(error.reason).")
            }
        }
        if memoryOnly {
            guard let client = cache?.clientInMemory(id: id) else { throw NotInMemory() }
            return client
        }
        if let cache { return try cache.client(id: id) }
        return try store.client(id: id)
    }
}
