import Foundation
import PorticoCrypto
import PorticoServer
import PorticoStore

extension ProviderHarness {
    /// Every built-in scope, which the test clients may ask for.
    public static let allScopes = ["openid", "profile", "profile:user_id", "postal_code", "email"]

    /// A person who signs in with `password`, registered the way `portico user add` does it
    /// (validated, hashed with `settings`, audited), then disabled when `disabled` says so.
    @discardableResult
    public func addUser(
        email: String = ProviderHarness.defaultEmail, name: String = "Ann Example", postalCode: String? = "10115",
        password: String = ProviderHarness.defaultPassword, disabled: Bool = false,
        settings: PasswordHashingSettings = ProviderHarness.passwordHashing
    ) throws -> UserRecord {
        // Fixtures sign in with short passwords; the rules themselves have their own tests.
        let registration = UserRegistration(
            email: email, name: name, postalCode: postalCode, password: password, checksPasswordRules: false)
        let user = try registration.register(in: store, hasher: PasswordHasher(settings: settings))
        guard disabled else { return user }
        _ = try UserAdministration.setDisabled(true, reference: user.id, in: store, now: clock.now)
        return try store.user(id: user.id).required("the disabled user \(user.id)")
    }

    /// A client with a known secret (`secret` for a confidential one unless given), stored as
    /// `portico client add` stores it, minus the random secret: the tests need to know it.
    @discardableResult
    public func addClient(
        name: String = "Example App", type: ClientType = .confidential, secret: String? = nil,
        redirectURIs: [String] = ["https://app.example/callback"], scopes: [String] = ProviderHarness.allScopes,
        grants: [String] = ["authorization_code", "refresh_token"], logoURL: String? = nil,
        privacyURL: String? = "https://app.example/privacy", idTokenAlgorithm: String = "RS256",
        postLogoutRedirectURIs: [String] = [], introspection: Bool = false
    ) throws -> Client {
        var client = Client(
            name: name, type: type, secret: type == .confidential ? (secret ?? "secret") : nil,
            redirectURIs: redirectURIs, allowedScopes: scopes, allowedGrantTypes: grants, logoURL: logoURL,
            privacyURL: privacyURL, idTokenSigningAlgorithm: idTokenAlgorithm,
            postLogoutRedirectURIs: postLogoutRedirectURIs)
        client.mayIntrospect = introspection
        try store.insert(client)
        return client
    }

    /// The secret ``addConfidentialClient(secret:scopes:grants:idTokenAlgorithm:)`` uses: it has
    /// every character form and Basic encoding must escape.
    public static let confidentialSecret = "s3cret: with &/+=% and ü"

    /// A confidential web app ("Test Shop") that authenticates with `secret`.
    public func addConfidentialClient(
        secret: String = ProviderHarness.confidentialSecret,
        scopes: [String] = ["openid", "profile", "email", "postal_code"],
        grants: [String] = ["authorization_code", "refresh_token"], idTokenAlgorithm: String = "RS256",
        introspection: Bool = false
    ) throws -> Client {
        try addClient(
            name: "Test Shop", secret: secret, redirectURIs: ["https://shop.example/callback"], scopes: scopes,
            grants: grants, privacyURL: nil, idTokenAlgorithm: idTokenAlgorithm, introspection: introspection)
    }

    /// A public native app with the loopback redirect URI (any port matches).
    public func addPublicClient(
        name: String = "Test App", redirectURIs: [String] = ["http://127.0.0.1/callback"],
        grants: [String] = ["authorization_code", "refresh_token"]
    ) throws -> Client {
        try addClient(name: name, type: .public, redirectURIs: redirectURIs, grants: grants, privacyURL: nil)
    }

    /// An authorization code as `/oauth/authorize` would have stored it, with its PKCE verifier.
    public struct IssuedCode: Sendable {
        /// The code the client redeems.
        public let code: String
        /// The PKCE verifier of the code's challenge.
        public let verifier: String
        /// The redirect URI the code was issued for.
        public let redirectURI: String
    }

    /// Stores an authorization code for `user` at `client`, skipping the pages (which have
    /// tests of their own), dated by the harness clock.
    public func issueCode(
        for client: Client, user: UserRecord, scopes: [String], nonce: String? = nil, expiresIn: TimeInterval = 60,
        authTime: Date? = nil
    ) throws -> IssuedCode {
        let now = clock.now
        let code = SecureRandom.token()
        let verifier = PKCE.makeVerifier()
        let redirectURI = try client.redirectURIs.first.required("client \(client.id) has no redirect URI")
        try store.insert(
            AuthorizationCode(
                code: code, clientID: client.id, userID: user.id, redirectURI: redirectURI, scopes: scopes,
                codeChallenge: PKCE.challenge(for: verifier), nonce: nonce, authTime: authTime ?? now,
                createdAt: now, expiresAt: now.addingTimeInterval(expiresIn)))
        return IssuedCode(code: code, verifier: verifier, redirectURI: redirectURI)
    }
}
