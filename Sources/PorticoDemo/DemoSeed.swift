import Foundation
import PorticoCrypto
import PorticoServer
import PorticoStore

/// Puts the demo app and the demo person into the database (`portico serve --demo`).
///
/// The app's secret is never stored: it is derived from the key file (so every node of a
/// cluster, given the same file, arrives at the same secret, and a copy of the database alone
/// does not have it), and only its hash is written, on every start. The person is made once
/// with a documented password, so `make run` can always say how to sign in. Several nodes may
/// seed at once: whichever registers first wins, and the others update what it made.
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
    /// The redirect URI of the demo's web-SDK page (`/demo/web`), under the issuer: the popup
    /// lands there and hands the code to the page, or the redirect comes back there.
    static let webCallbackPath = "/demo/web/callback"

    /// Creates or refreshes the app for `issuer` and makes the person if missing.
    ///
    /// - Returns: the app's secret (derived from the key file, never stored) and the credentials to print.
    static func prepare(issuer: String, services: ProviderAppServices) throws -> (secret: String, DemoCredentials) {
        // Another node may register the app, then the person, each between our read and our
        // insert: each conflict means one more record exists, so three attempts always settle.
        var attempt = 0
        while true {
            do {
                return try seed(issuer: issuer, services: services)
            } catch AdminError.conflict where attempt < 2 {
                attempt += 1
            }
        }
    }

    private static func seed(issuer: String, services: ProviderAppServices) throws -> (secret: String, DemoCredentials)
    {
        let redirectURIs = [issuer + "/demo/callback", issuer + webCallbackPath]
        let signedOutURI = issuer + signedOutPath
        let secret = Base64URL.encode(services.derivedSecret(purpose: "demo app client secret"))
        let store = services.store
        let setSecret = {
            try store.transaction { transaction -> Bool in
                guard var client = try transaction.client(id: clientID) else { return false }
                client.setSecret(secret)
                client.redirectURIs = redirectURIs
                client.postLogoutRedirectURIs = [signedOutURI]
                client.privacyURL = privacyURL(issuer: issuer)
                try transaction.update(client)
                // The web page signs in from the issuer's own origin, by FedCM where the browser has it.
                if let origin = webOrigin(issuer: issuer) {
                    try transaction.setClientWebOrigins(clientID: clientID, webOrigins: [origin])
                }
                try transaction.append(AuditEvent(actor: "system", action: "demo.set_secret", subject: clientID))
                return true
            }
        }
        if try !setSecret() {
            let registration = ClientRegistration(
                name: clientName, redirectURIs: redirectURIs, privacyURL: privacyURL(issuer: issuer),
                postLogoutRedirectURIs: [signedOutURI])
            // Registration makes a random secret; replace it with the derived one at once.
            _ = try registration.register(in: store, clientID: clientID)
            _ = try setSecret()
        }

        var password: String? = Self.password
        if let person = try store.user(email: email) {
            if !services.passwords.verify(Self.password, against: person.passwordHash) { password = nil }
        } else {
            _ = try UserRegistration(
                email: email, name: personName, postalCode: postalCode, password: Self.password, isEmailVerified: true,
                checksPasswordRules: false
            )
            .register(in: store, hasher: services.passwords)
        }
        let credentials = DemoCredentials(
            startURL: issuer + "/demo", email: email, password: password, clientID: clientID)
        return (secret, credentials)
    }

    /// The origin of `issuer` (scheme, host and port), where the demo's web page runs.
    private static func webOrigin(issuer: String) -> String? {
        guard let url = URLComponents(string: issuer), let scheme = url.scheme, let host = url.host else { return nil }
        return "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
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
