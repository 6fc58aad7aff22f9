import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoServer
import Synchronization

/// The built-in "third-party app" of `portico serve --demo`: a page with a "Login with
/// Portico" button, and a callback that finishes the authorization code flow (PKCE S256,
/// state, nonce) against this provider over real HTTP and shows what the app learned.
///
/// It uses only what any app has: its client id and secret, the discovery document, the token
/// endpoint, the JWKS and `/user/profile`. Nothing reaches into the provider's internals.
final class DemoSite: Sendable {
    /// The cookie that binds a sign-in's state to the browser that started it.
    static let stateCookie = "portico_demo_state"
    /// The cookie that holds the `state` of the demo app's sign-out, checked when Portico
    /// sends the browser back.
    static let logoutStateCookie = "portico_demo_logout"
    /// The cookie that binds the web page's sign-in (its nonce) to the browser that loaded it.
    static let webStateCookie = "portico_demo_web"

    private struct Setup: Sendable {
        var secret: String
        var credentials: DemoCredentials
    }

    private let services: ProviderAppServices
    private let setup = Mutex<Setup?>(nil)
    private let pending: PendingDemoLogins

    init(services: ProviderAppServices) {
        self.services = services
        pending = PendingDemoLogins(secret: services.derivedSecret(purpose: "demo app sign-ins"))
    }

    /// Seeds the app and the person for the provider's (now known) issuer; call once the port
    /// is bound.
    @discardableResult
    func prepare() throws -> DemoCredentials {
        let (secret, credentials) = try DemoSeed.prepare(issuer: services.issuer, services: services)
        setup.withLock { $0 = Setup(secret: secret, credentials: credentials) }
        return credentials
    }

    /// What to print for the newcomer; nil before ``prepare()``.
    var credentials: DemoCredentials? {
        setup.withLock { $0?.credentials }
    }

    private var relyingParty: DemoRelyingParty? {
        let secret = setup.withLock { $0?.secret }
        return secret.map { DemoRelyingParty(issuer: services.issuer, clientID: DemoSeed.clientID, clientSecret: $0) }
    }

    private var redirectURI: String { services.issuer + "/demo/callback" }

    // MARK: Handlers

    /// `GET /demo`: the app's home page.
    func home(_ request: Request) -> Response {
        DemoPages.home(credentials: credentials)
    }

    /// `GET /demo/login`: starts a sign-in and sends the browser to the authorization endpoint.
    func startLogin(_ request: Request) async -> Response {
        guard let relyingParty else { return DemoPages.failure(.provider(step: "setup", detail: "demo not ready")) }
        let endpoints: DemoRelyingParty.Endpoints
        do {
            endpoints = try await relyingParty.discover()
        } catch {
            return DemoPages.failure(error)
        }
        let (state, login) = pending.start(now: services.now())
        let query = FormEncoding.body([
            ("response_type", "code"), ("client_id", DemoSeed.clientID), ("redirect_uri", redirectURI),
            ("scope", DemoSeed.requestedScopes.joined(separator: " ")), ("state", state),
            ("nonce", login.nonce), ("code_challenge", PKCE.challenge(for: login.codeVerifier)),
            ("code_challenge_method", "S256"),
        ])
        let separator = endpoints.authorization.contains("?") ? "&" : "?"
        var response = DemoPages.secured(.redirect(to: endpoints.authorization + separator + query))
        response.setCookie(
            Cookie(
                name: Self.stateCookie, value: state, path: "/demo", maxAge: Int(PendingDemoLogins.lifetime),
                isSecure: services.usesHTTPS, isHTTPOnly: true, sameSite: .lax))
        return response
    }

    /// `GET /demo/callback`: checks state (and `iss`), redeems the code, verifies the ID token,
    /// reads the profile, and shows the result.
    func callback(_ request: Request) async -> Response {
        var response: Response
        do {
            response = signedIn(try await finish(request))
        } catch {
            response = DemoPages.failure(error)
        }
        response.setCookie(Cookie.expired(name: Self.stateCookie, path: "/demo"))
        return response
    }

    /// The result page with its "Sign out" form, whose `state` a cookie remembers.
    private func signedIn(_ result: DemoPages.SignInResult) -> Response {
        let logoutState = SecureRandom.token()
        let signOut = DemoPages.SignOut(
            endpoint: services.issuer + "/oauth/logout",
            fields: [
                ("id_token_hint", result.tokens.idToken), ("client_id", DemoSeed.clientID),
                ("post_logout_redirect_uri", services.issuer + DemoSeed.signedOutPath), ("state", logoutState),
            ])
        var response = DemoPages.success(result, signOut: signOut)
        response.setCookie(
            Cookie(
                name: Self.logoutStateCookie, value: logoutState, path: "/demo",
                isSecure: services.usesHTTPS, isHTTPOnly: true, sameSite: .lax))
        return response
    }

    // MARK: The web-SDK page

    /// `GET /demo/web`: the page with the SDK's button. Its nonce derives from a fresh state,
    /// which an HttpOnly cookie binds to this browser, as ``startLogin(_:)`` does.
    func webHome(_ request: Request) -> Response {
        let (state, login) = pending.start(now: services.now())
        var response = DemoWebPages.home(
            redirectURI: services.issuer + DemoSeed.webCallbackPath, nonce: login.nonce,
            language: DemoWebPages.Language(query: request.query["lang"]))
        response.setCookie(
            Cookie(
                name: Self.webStateCookie, value: state, path: "/demo", maxAge: Int(PendingDemoLogins.lifetime),
                isSecure: services.usesHTTPS, isHTTPOnly: true, sameSite: .lax))
        return response
    }

    /// `POST /demo/web/redeem`: what the app's backend does with the SDK's answer: redeems
    /// `code` with `code_verifier` (and `redirect_uri`, unless the code came from FedCM), checks
    /// the ID token (its nonce the one of this browser's page), reads the profile, and shows it.
    func webRedeem(_ request: Request) async -> Response {
        var response: Response
        do {
            response = signedIn(try await finishWeb(request))
        } catch {
            response = DemoPages.failure(error)
        }
        response.setCookie(Cookie.expired(name: Self.webStateCookie, path: "/demo"))
        return response
    }

    private func finishWeb(_ request: Request) async throws(DemoFlowError) -> DemoPages.SignInResult {
        guard let state = request.cookies[Self.webStateCookie],
            let login = pending.finish(state: state, now: services.now())
        else { throw .unknownState }
        let form: FormParameters
        do {
            form = try request.form()
        } catch {
            throw .missingCode
        }
        guard let code = form["code"], !code.isEmpty, let verifier = form["code_verifier"], !verifier.isEmpty else {
            throw .missingCode
        }
        let webRedirectURI = services.issuer + DemoSeed.webCallbackPath
        let presented = form["redirect_uri"].flatMap { $0.isEmpty ? nil : $0 }
        if let presented, presented != webRedirectURI { throw .unknownState }
        guard let relyingParty else { throw .provider(step: "setup", detail: "demo not ready") }
        let endpoints = try await relyingParty.discover()
        let tokens = try await relyingParty.redeem(
            code: code, verifier: verifier, redirectURI: presented, at: endpoints.token)
        let claims = try await relyingParty.verifyIDToken(tokens.idToken, nonce: login.nonce, jwksURL: endpoints.jwks)
        let profile = try await relyingParty.profile(accessToken: tokens.accessToken)
        return DemoPages.SignInResult(claims: claims, profile: profile, tokens: tokens)
    }

    /// `GET /demo/signed-out`: where Portico returns after the demo app's sign-out; checks that
    /// the `state` is the one this browser's sign-out sent.
    func signedOut(_ request: Request) -> Response {
        let returned = request.query["state"]
        let expected = request.cookies[Self.logoutStateCookie]
        let matches = returned.flatMap { state in expected.map { ConstantTime.equals(state, $0) } } ?? false
        var response = DemoPages.signedOut(stateMatches: matches)
        response.setCookie(Cookie.expired(name: Self.logoutStateCookie, path: "/demo"))
        return response
    }

    private func finish(_ request: Request) async throws(DemoFlowError) -> DemoPages.SignInResult {
        let query = request.query
        guard let state = query["state"], let bound = request.cookies[Self.stateCookie],
            ConstantTime.equals(state, bound), let login = pending.finish(state: state, now: services.now())
        else { throw .unknownState }
        if let issuer = query["iss"], issuer != services.issuer { throw .wrongIssuer(issuer) }
        if let error = query["error"] {
            throw .authorizationError(code: error, description: query["error_description"])
        }
        guard let code = query["code"], !code.isEmpty else { throw .missingCode }
        guard let relyingParty else { throw .provider(step: "setup", detail: "demo not ready") }
        let endpoints = try await relyingParty.discover()
        let tokens = try await relyingParty.redeem(
            code: code, verifier: login.codeVerifier, redirectURI: redirectURI, at: endpoints.token)
        let claims = try await relyingParty.verifyIDToken(tokens.idToken, nonce: login.nonce, jwksURL: endpoints.jwks)
        let profile = try await relyingParty.profile(accessToken: tokens.accessToken)
        return DemoPages.SignInResult(claims: claims, profile: profile, tokens: tokens)
    }
}
