import Foundation
import PorticoCrypto
import PorticoServer
import PorticoStore
import PorticoTesting
import Testing

/// Where the session tests' app returns after signing out.
let sessionTestSignedOutURI = "https://app.example/signed-out"

extension ProviderHarness {
    /// A confidential client (secret `secret`) with a registered post-logout redirect URI.
    func addLogoutClient(name: String = "Example App") throws -> Client {
        try addClient(
            name: name, logoURL: "https://app.example/logo.png", postLogoutRedirectURIs: [sessionTestSignedOutURI])
    }

    /// Signs a JWT with the provider's current key of `algorithm`, read from its database: the
    /// way to make an ID token the provider would accept but with chosen claims (expired, or for
    /// another sign-in).
    func signWithProviderKey(_ claims: JWTClaims, algorithm: String = "RS256") throws -> String {
        let stored = try #require(try store.read { try $0.currentSigningKey(algorithm: algorithm) })
        let encryption = try SigningKeyEncryption.load(keyFile: nil, store: store)
        let key = try PorticoCrypto.SigningKey(pem: try encryption.privateKeyPEM(of: stored), keyID: stored.id)
        return JWS.sign(claims: claims, key: key, type: "JWT")
    }
}

extension TestBrowser {
    /// What a browser forgets when it is closed and opened again: its cookies without
    /// `Max-Age` (the CSRF secret and the "Continue as" confirmation; the session cookie too
    /// when it was not a "keep me signed in" one, which the caller says).
    func restart(keepingSession: Bool = true) {
        setCookie("portico_confirmed", nil)
        setCookie("portico_csrf", nil)
        if !keepingSession { setCookie("portico_session", nil) }
    }
}

/// The token endpoint's JSON answer to redeeming `code` (client_secret_post).
func sessionRedeem(_ browser: TestBrowser, client: Client, code: String, pkce: PKCEPair) async throws
    -> [String: JSONValue]
{
    let reply = try await browser.post(
        "/oauth/token",
        [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", client.redirectURIs[0]),
            ("code_verifier", pkce.verifier), ("client_id", client.id), ("client_secret", "secret"),
        ])
    #expect(reply.status == 200)
    return try #require(JSONValue(parsing: Array(reply.text.utf8))?.objectValue)
}

/// A refresh grant's status and `error`.
func sessionRefresh(_ browser: TestBrowser, client: Client, refreshToken: String) async throws -> (Int, String?) {
    let reply = try await browser.post(
        "/oauth/token",
        [
            ("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", client.id),
            ("client_secret", "secret"),
        ])
    return (reply.status, JSONValue(parsing: Array(reply.text.utf8))?.objectValue?["error"]?.stringValue)
}

/// Runs a first authorization (sign in, with or without "keep me signed in", Allow) and
/// returns the code's redirect.
func sessionFirstAuthorization(
    _ browser: TestBrowser, client: Client, pkce: PKCEPair = PKCEPair(), scope: String = "openid profile",
    remember: Bool, email: String = "ann@example.com"
) async throws -> TestReply {
    let start = try await browser.get(TestBrowser.authorizePath(client: client, pkce: pkce, scope: scope))
    let login = try await browser.signIn(at: try #require(start.location), email: email, remember: remember)
    #expect(login.status == 303)
    let next = try #require(login.location)
    if next.hasPrefix("/consent") { return try await browser.decide(at: next, "allow") }
    return login
}

/// The `Max-Age` of a `Set-Cookie` field, if it has one.
func sessionMaxAge(_ setCookie: String) -> Int? {
    guard let range = setCookie.range(of: #"Max-Age=\d+"#, options: .regularExpression) else { return nil }
    return Int(setCookie[range].dropFirst("Max-Age=".count))
}
