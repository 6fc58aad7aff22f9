import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

/// A password that passes every rule of the sign-up and reset pages.
let strongPassword = "violet tram under seven lanterns"

/// Opens the create-account page at `path` and posts `fields` with its CSRF token and request.
func accountSignUp(_ browser: TestBrowser, at path: String = "/signup", _ fields: [(String, String)]) async throws
    -> TestReply
{
    let page = try await browser.get(path)
    #expect(page.status == 200)
    var form = [("csrf_token", try #require(page.hiddenField("csrf_token")))] + fields
    if let request = page.hiddenField("request") { form.append(("request", request)) }
    return try await browser.post("/signup", form)
}

/// Asks for a reset link on the forgot-password page at `path`.
func accountForgot(_ browser: TestBrowser, at path: String = "/password/forgot", email: String) async throws
    -> TestReply
{
    let page = try await browser.get(path)
    #expect(page.status == 200)
    var form = [("csrf_token", try #require(page.hiddenField("csrf_token"))), ("email", email)]
    if let request = page.hiddenField("request") { form.append(("request", request)) }
    return try await browser.post("/password/forgot", form)
}

/// Opens a reset link and posts a new password (and its confirmation).
func accountReset(
    _ browser: TestBrowser, link: String, password: String = strongPassword, confirmation: String? = nil
) async throws -> TestReply {
    let page = try await browser.get(link)
    #expect(page.status == 200)
    var form = [
        ("csrf_token", try #require(page.hiddenField("csrf_token"))),
        ("token", try #require(page.hiddenField("token"))),
        ("password", password), ("password_confirmation", confirmation ?? password),
    ]
    if let request = page.hiddenField("request") { form.append(("request", request)) }
    // Post where the form says (it keeps the link's `ui_locales`).
    let action = page.text.range(of: #"action="/password/reset[^"]*""#, options: .regularExpression).map {
        String(page.text[$0].dropFirst(8).dropLast())
    }
    return try await browser.post(action ?? "/password/reset", form)
}

/// The reset link in a mail (as a path on the provider, for the test browser).
func resetLink(in message: String) throws -> String {
    let range = try #require(
        message.range(of: #"http://[^\s]+/password/reset\?token=[^\s]+"#, options: .regularExpression))
    let url = try #require(URL(string: String(message[range])))
    return url.path + "?" + (url.query ?? "")
}

/// Redeems an authorization code at the token endpoint with the harness client's secret.
func accountRedeem(
    _ browser: TestBrowser, code: String, client: Client, verifier: String
) async throws -> (Int, [String: JSONValue]) {
    let reply = try await browser.post(
        "/oauth/token",
        [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", client.redirectURIs[0]),
            ("code_verifier", verifier), ("client_id", client.id), ("client_secret", "secret"),
        ])
    return (reply.status, JSONValue(parsing: Array(reply.text.utf8))?.objectValue ?? [:])
}

/// Presents a refresh token at the token endpoint.
func accountRefresh(_ browser: TestBrowser, token: String, client: Client) async throws -> (
    Int, [String: JSONValue]
) {
    let reply = try await browser.post(
        "/oauth/token",
        [
            ("grant_type", "refresh_token"), ("refresh_token", token), ("client_id", client.id),
            ("client_secret", "secret"),
        ])
    return (reply.status, JSONValue(parsing: Array(reply.text.utf8))?.objectValue ?? [:])
}

/// The sign-up confirmation link in a mail (as a path on the provider, for the test browser).
func signupLink(in message: String) throws -> String {
    let range = try #require(
        message.range(of: #"http://[^\s]+/signup/verify\?token=[^\s]+"#, options: .regularExpression))
    let url = try #require(URL(string: String(message[range])))
    return url.path + "?" + (url.query ?? "")
}

/// The newest outbox message to `address`, once the outbox holds at least `count` messages.
func mail(to address: String, in provider: ProviderHarness, atLeast count: Int = 1) async throws -> String {
    let messages = try await provider.outboxMessages(atLeast: count)
    return try #require(messages.last { $0.contains("\r\nTo: \(address)\r\n") }, "no mail to \(address)")
}

/// Opens a confirmation link (which must show the confirmation form) and presses its button.
func accountConfirm(_ browser: TestBrowser, link: String) async throws -> TestReply {
    let page = try await browser.get(link)
    #expect(page.status == 200)
    var form = [
        ("csrf_token", try #require(page.hiddenField("csrf_token"))),
        ("token", try #require(page.hiddenField("token"))),
    ]
    if let request = page.hiddenField("request") { form.append(("request", request)) }
    let action = page.text.range(of: #"action="/signup/verify[^"]*""#, options: .regularExpression).map {
        String(page.text[$0].dropFirst(8).dropLast())
    }
    return try await browser.post(action ?? "/signup/verify", form)
}
