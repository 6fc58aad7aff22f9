import PorticoCrypto
import PorticoStore

/// Puts the demo app and the demo person into the database (`portico serve --demo`).
///
/// The app's secret lives only in this process: it is made fresh on every start (rotating the
/// stored hash when the app exists from an earlier run), so nothing but hashes touches disk.
/// The person is made once with a documented password, so `make run` can always say how to
/// sign in.
enum DemoSeed {
    /// The demo app's fixed `client_id`, so later starts find it again.
    static let clientID = "portico-demo"
    /// The demo app's name on the sign-in and consent pages.
    static let clientName = "Portico Demo App"
    /// The demo person's address.
    static let email = "demo@example.com"
    /// The demo person's documented password (README, `portico serve --demo` output).
    static let password = "portico-demo"
    /// The demo person's name and postal code.
    static let personName = "Dana Demo"
    static let postalCode = "98101"
    /// What the demo app asks for: an ID token, the profile and the postal code, as a Login
    /// with Amazon app typically does.
    static let requestedScopes = ["openid", "profile", "postal_code"]
    /// Where Portico sends the browser back after the demo app's "Sign out" (its registered
    /// post-logout redirect URI, under the issuer).
    static let signedOutPath = "/demo/signed-out"

    /// Creates or refreshes the app for `issuer` and makes the person if missing.
    ///
    /// - Returns: the app's new secret (kept in memory only) and the credentials to print.
    static func prepare(issuer: String, context: ProviderContext) throws -> (secret: String, DemoCredentials) {
        let redirectURI = issuer + "/demo/callback"
        let signedOutURI = issuer + signedOutPath
        let secret = SecureRandom.token()
        let store = context.store
        let rotated = try store.transaction { transaction -> Bool in
            guard var client = try transaction.client(id: clientID) else { return false }
            client.setSecret(secret)
            client.redirectURIs = [redirectURI]
            client.postLogoutRedirectURIs = [signedOutURI]
            client.privacyURL = privacyURL(issuer: issuer)
            try transaction.update(client)
            try transaction.append(AuditEvent(actor: "system", action: "demo.rotate_secret", subject: clientID))
            return true
        }
        var clientSecret = secret
        if !rotated {
            let registration = ClientRegistration(
                name: clientName, redirectURIs: [redirectURI], privacyURL: privacyURL(issuer: issuer),
                postLogoutRedirectURIs: [signedOutURI])
            let registered = try registration.register(in: store, clientID: clientID)
            clientSecret = registered.secret ?? secret
        }

        var password: String? = Self.password
        if let person = try store.user(email: email) {
            if !context.passwords.verify(Self.password, against: person.passwordHash) { password = nil }
        } else {
            _ = try UserRegistration(email: email, name: personName, postalCode: postalCode, password: Self.password)
                .register(in: store, hasher: context.passwords)
        }
        let credentials = DemoCredentials(
            startURL: issuer + "/demo", email: email, password: password, clientID: clientID)
        return (clientSecret, credentials)
    }

    /// The demo app's privacy page, when the issuer is one a client may link (https or loopback).
    private static func privacyURL(issuer: String) -> String? {
        let url = issuer + "/demo/privacy"
        do {
            try ClientURIRules.checkWebURL(url, label: "privacy URL")
            return url
        } catch {
            return nil
        }
    }
}
