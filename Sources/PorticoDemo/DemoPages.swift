import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoServer

/// The demo app's pages: home, result, failure and privacy.
///
/// They look like a small third-party site (its own top bar) on the provider's stylesheet.
/// Every value shown is escaped: claims and profile fields come from the network.
enum DemoPages {
    /// What a finished sign-in gave the app.
    struct SignInResult: Sendable {
        let claims: JWTClaims
        let profile: [String: JSONValue]
        let tokens: DemoRelyingParty.Tokens
    }

    /// The demo app's "Sign out" form: RP-initiated logout at the provider, posted so the ID
    /// token does not end up in a URL.
    struct SignOut: Sendable {
        /// The provider's `end_session_endpoint`.
        let endpoint: String
        /// `id_token_hint`, `client_id`, `post_logout_redirect_uri`, `state`.
        let fields: [(String, String)]
    }

    /// The demo pages' policy: own styles only, no scripts, no framing, forms only to itself.
    static let contentSecurityPolicy =
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'none'; object-src 'none'; "
        + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    /// `/demo`: explains itself and offers the "Login with Portico" button.
    static func home(credentials: DemoCredentials?) -> Response {
        var account = ""
        if let credentials {
            let password =
                credentials.password.map { "password <code>\(escape($0))</code>" }
                ?? "the password you set for it"
            account = """
                <p class="demo-hint">Demo account: <code>\(escape(credentials.email))</code>, \(password).</p>
                """
        }
        return page(
            title: "Welcome",
            content: """
                <h1>Welcome to the Portico Demo App</h1>
                <p class="lead">This page plays a third-party app. Sign in with your Portico account and
                the app gets your name, e-mail address and postal code, once you agree.</p>
                <p><a class="demo-login" id="login-with-portico" href="/demo/login">\
                <span class="demo-login-mark" aria-hidden="true">P</span>Login with Portico</a></p>
                <p class="demo-hint"><a href="/demo/web" id="demo-web">The same from a web page, with the web SDK \
                (<code>/sdk/portico.js</code>)</a></p>
                \(account)
                <details class="demo-how"><summary>What happens</summary>
                <ol>
                <li>The app sends you to Portico's sign-in with an authorization request (code flow,
                PKCE S256, <code>state</code> and <code>nonce</code>).</li>
                <li>You sign in and agree on the consent page, or press Cancel.</li>
                <li>Portico sends you back to <code>/demo/callback</code> with a one-time code; the app
                redeems it at the token endpoint, checks the ID token's signature against the JWKS, and
                reads <code>/user/profile</code>.</li>
                </ol></details>
                """)
    }

    /// `/demo/callback` after a successful sign-in.
    static func success(_ result: SignInResult, signOut: SignOut) -> Response {
        let name = result.profile["name"]?.stringValue ?? result.claims.subject ?? "you"
        let profileRows = result.profile.keys.sorted().map { key in
            row(key, display(result.profile[key]))
        }
        var claimRows: [String] = []
        if let issuer = result.claims.issuer { claimRows.append(row("iss", issuer)) }
        if let subject = result.claims.subject { claimRows.append(row("sub", subject)) }
        if !result.claims.audience.isEmpty {
            claimRows.append(row("aud", result.claims.audience.joined(separator: " ")))
        }
        if let issuedAt = result.claims.issuedAt { claimRows.append(row("iat", timestamp(issuedAt))) }
        if let expiresAt = result.claims.expiresAt { claimRows.append(row("exp", timestamp(expiresAt))) }
        for key in result.claims.additionalClaims.keys.sorted() {
            claimRows.append(row(key, display(result.claims.additionalClaims[key])))
        }
        let scope = result.tokens.scope ?? DemoSeed.requestedScopes.joined(separator: " ")
        return page(
            title: "Signed in",
            content: """
                <h1 id="signed-in">Hello, \(escape(name))!</h1>
                <p class="lead">The demo app signed you in with Portico. Here is what it learned, and
                nothing more.</p>
                <h2>Your profile (<code>/user/profile</code>)</h2>
                <table class="demo-table" id="profile">\(profileRows.joined())</table>
                <h2>ID token claims (signature verified)</h2>
                <table class="demo-table" id="claims">\(claimRows.joined())</table>
                <h2>Access</h2>
                <table class="demo-table" id="access">\
                \(row("scope", scope))\
                \(row("expires in", result.tokens.expiresIn.map { "\($0) s" } ?? "not said"))\
                \(row("refresh token", result.tokens.hasRefreshToken ? "issued (kept by the app, not shown)" : "none"))\
                </table>
                <p class="demo-actions"><a href="/demo">Back to the app</a>\
                <a href="/account">Manage what apps can see in Your Account</a></p>
                <form method="post" action="\(escape(signOut.endpoint))" class="demo-signout">\
                \(signOut.fields.map { HTML.hiddenField(name: $0.0, value: $0.1) }.joined())\
                <button type="submit" class="demo-signout-button" id="demo-sign-out">Sign out</button></form>
                """)
    }

    /// `/demo/signed-out`: Portico sent the browser back after signing out.
    static func signedOut(stateMatches: Bool) -> Response {
        let check =
            stateMatches
            ? "The <code>state</code> Portico returned is the one this sign-out sent."
            : "The <code>state</code> did not match a sign-out started here, so this page proves nothing."
        return page(
            title: "Signed out",
            content: """
                <h1 id="demo-signed-out">You are signed out</h1>
                <p class="lead">The demo app forgot you, and Portico ended your sign-in on this browser.</p>
                <p class="demo-hint" id="logout-state">\(check)</p>
                <p><a class="demo-login" href="/demo/login"><span class="demo-login-mark" aria-hidden="true">P</span>\
                Login with Portico</a></p>
                <p class="demo-actions"><a href="/demo">Back to the app</a></p>
                """)
    }

    /// `/demo/callback` when the sign-in did not succeed.
    static func failure(_ error: DemoFlowError) -> Response {
        let heading: String
        let explanation: String
        var status = HTTPStatus.badRequest
        switch error {
        case .authorizationError(let code, let description) where code == "access_denied":
            heading = "Sign-in cancelled"
            explanation =
                "You chose Cancel, so Portico shared nothing with the app (error <code>access_denied</code>)."
                + (description.map { " Portico said: \(escape($0))" } ?? "")
        case .authorizationError(let code, let description):
            heading = "Portico refused the sign-in"
            explanation =
                "The authorization server answered with error <code>\(escape(code))</code>."
                + (description.map { " " + escape($0) } ?? "")
        case .unknownState:
            heading = "This sign-in cannot be finished"
            explanation =
                "The answer does not belong to a sign-in this browser started here, or it expired "
                + "(the <code>state</code> check failed). Start again from the app."
        case .missingCode:
            heading = "No authorization code"
            explanation = "Portico's answer carried neither a code nor an error."
        case .wrongIssuer(let issuer):
            heading = "Answer from the wrong server"
            explanation = "The answer names the issuer <code>\(escape(issuer))</code>, not the one the app asked."
        case .provider(let step, let detail):
            heading = "The app could not talk to Portico"
            explanation = "The \(escape(step)) failed: \(escape(detail))"
            status = HTTPStatus(rawValue: 502)
        case .invalidIDToken(let reason):
            heading = "The ID token was rejected"
            explanation = "The app refused the ID token: \(escape(reason))"
            status = HTTPStatus(rawValue: 502)
        }
        return page(
            title: heading,
            content: """
                <h1 id="demo-error">\(escape(heading))</h1>
                <p class="lead">\(explanation)</p>
                <p><a class="demo-login" href="/demo/login"><span class="demo-login-mark" aria-hidden="true">P</span>\
                Try again with Portico</a></p>
                <p class="demo-actions"><a href="/demo">Back to the app</a></p>
                """,
            status: status)
    }

    /// `/demo/privacy`: the privacy policy the consent page links for the demo app.
    static func privacy() -> Response {
        page(
            title: "Privacy",
            content: """
                <h1>Privacy policy of the Portico Demo App</h1>
                <p class="lead">This app is a demonstration. It shows what Portico shared with it on one page and
                keeps nothing: no database, no cookies beyond the sign-in in progress.</p>
                <p class="demo-actions"><a href="/demo">Back to the app</a></p>
                """)
    }

    /// `response` with the demo pages' security headers (`policy`: the pages' CSP, which the
    /// web-SDK pages widen to their own scripts).
    static func secured(_ response: Response, policy: String = contentSecurityPolicy) -> Response {
        var response = response
        response.headers["Content-Security-Policy"] = policy
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["Cache-Control"] = "no-store"
        return response
    }

    /// A demo page: `head` adds to its `<head>` (the web page's scripts), `language` is its
    /// `<html lang>`, `policy` its CSP.
    static func page(
        title: String, content: String, status: HTTPStatus = .ok, head: String = "", language: String = "en",
        policy: String = contentSecurityPolicy
    ) -> Response {
        secured(
            .html(
                """
                <!doctype html>
                <html lang="\(escape(language))">
                <head>
                <meta charset="utf-8">
                <meta name="viewport" content="width=device-width, initial-scale=1">
                <title>\(escape(title)) – Portico Demo App</title>
                <link rel="stylesheet" href="/assets/portico.css">
                <link rel="stylesheet" href="/demo/demo.css">
                \(head)</head>
                <body class="demo">
                <header class="demo-topbar"><a class="demo-brand" href="/demo">Portico Demo App</a>\
                <span class="demo-tag">a third-party app</span></header>
                <main><div class="card demo-card">
                \(content)
                </div></main>
                </body>
                </html>

                """, status: status), policy: policy)
    }

    private static func row(_ name: String, _ value: String) -> String {
        "<tr><th scope=\"row\">\(escape(name))</th><td>\(escape(value))</td></tr>"
    }

    /// A JSON value as a person reads it: strings bare, the rest as JSON.
    private static func display(_ value: JSONValue?) -> String {
        guard let value else { return "" }
        return value.stringValue ?? value.jsonString
    }

    private static func timestamp(_ date: Date) -> String {
        "\(Int64(date.timeIntervalSince1970)) (\(ISO8601DateFormatter().string(from: date)))"
    }

    /// The pages' own escaping: the demo shows values that came over the network.
    static func escape(_ text: String) -> String {
        HTML.escape(text)
    }
}
