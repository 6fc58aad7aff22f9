import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// The decisions between a valid authorization request and the redirect back to the app:
/// is someone signed in recently enough, has the person granted these scopes, and if so the
/// authorization code.
///
/// The authorization endpoint, the sign-in page (after a password) and the consent page (after
/// Allow) all end here, so the rules live in one place.
enum AuthorizationFlow {
    /// The path of the sign-in page.
    static let loginPath = "/login"
    /// The path of the consent page.
    static let consentPath = "/consent"
    /// The path of the "Continue as …" page.
    static let continuePath = "/continue"
    /// The query and form field that carries the sealed request between pages.
    static let requestField = "request"
    /// The device login page, where device sign-ins return (``AuthorizationRequest/isDeviceSignIn``).
    static let devicePath = "/device"

    /// The next step for `request`: the sign-in page, the consent page, or the redirect to the
    /// app (with a code, or with `login_required` / `consent_required` under `prompt=none`).
    ///
    /// - Parameters:
    ///   - signedIn: the browser's session, if any.
    ///   - mustSignIn: ask for the password even if the session is recent enough
    ///     (`prompt=login` at the authorization endpoint).
    ///   - mustConfirm: a "keep me signed in" session not yet confirmed in this browser run
    ///     (``ReturnConfirmation``): ask "Continue as …?" first, unless `prompt=none` forbids
    ///     pages (then the session speaks for itself, as any live session does).
    ///   - personActed: whether the person has just acted on a page for this request (a password,
    ///     sign-up, or "Continue"); a public app's remembered consent is only replayed then.
    ///   - status: the redirect status: 302 after a GET, 303 after a form post.
    static func next(
        for request: AuthorizationRequest, client: Client, signedIn: SignInSession?, mustSignIn: Bool = false,
        mustConfirm: Bool = false, personActed: Bool = false, environment: PageEnvironment, status: HTTPStatus = .found
    ) throws -> Response {
        if request.isDeviceSignIn {
            // A device login always ends on its own consent page, which shows the code to compare.
            let ready = signedIn.map { !mustSignIn && request.acceptsAuthentication(at: $0.session.authTime) } ?? false
            return try redirect(
                to: ready ? devicePath : loginPath, carrying: request, environment: environment, status: status)
        }
        guard let signedIn, !mustSignIn, request.acceptsAuthentication(at: signedIn.session.authTime) else {
            if request.forbidsInteraction { return failure(.loginRequired, request, environment, status) }
            return try redirect(to: loginPath, carrying: request, environment: environment, status: status)
        }
        if mustConfirm && !request.forbidsInteraction {
            return try redirect(to: continuePath, carrying: request, environment: environment, status: status)
        }
        let granted = try environment.store.read { transaction -> Set<String>? in
            guard let consent = try transaction.consent(userID: signedIn.user.id, clientID: client.id) else {
                return nil
            }
            return try AccountLinkConsent.standingScopes(of: consent, for: client, in: transaction)
        }
        if let granted, request.scopes.allSatisfy(granted.contains), !request.forcesConsent {
            if asksBeforeReplayingConsent(client) && !personActed {
                if request.forbidsInteraction { return failure(.interactionRequired, request, environment, status) }
                return try redirect(to: continuePath, carrying: request, environment: environment, status: status)
            }
            return try issueCode(for: request, signedIn: signedIn, environment: environment, status: status)
        }
        if request.forbidsInteraction { return failure(.consentRequired, request, environment, status) }
        return try redirect(to: consentPath, carrying: request, environment: environment, status: status)
    }

    /// Whether a remembered consent to `client` needs a click ("Continue to <app> as <name>")
    /// before a code is issued: for public clients, whose identity nothing proves (RFC 8252 §8.6:
    /// any local program can claim a loopback port or a custom scheme and open the authorize
    /// URL with its own PKCE pair). Confidential clients, which must present their secret to
    /// redeem the code, keep the silent path, as in Keycloak and node-oidc-provider.
    static func asksBeforeReplayingConsent(_ client: Client) -> Bool {
        client.type == .public
    }

    /// The longest a FAPI 2.0 client's code lives.
    static let fapiCodeLifetime: TimeInterval = 60

    /// Stores a new authorization code for `request` and redirects to the app with it.
    static func issueCode(
        for request: AuthorizationRequest, signedIn: SignInSession, environment: PageEnvironment, status: HTTPStatus
    ) throws -> Response {
        guard !request.isDeviceSignIn else { throw PageProblem.invalidRequest }
        let now = environment.now()
        var lifetime = environment.lifetimes.authorizationCode
        // FAPI 2.0 Security Profile §5.3.2.1: codes of at most one minute, whatever the server's.
        if try environment.store.read({ try $0.client(id: request.clientID) })?.securityProfile == .fapi2 {
            lifetime = min(lifetime, Self.fapiCodeLifetime)
        }
        let code = SecureRandom.token()
        var stored = AuthorizationCode(
            code: code, clientID: request.clientID, userID: signedIn.user.id,
            redirectURI: request.redirectURI, scopes: request.scopes, codeChallenge: request.codeChallenge,
            nonce: request.nonce, authTime: signedIn.session.authTime,
            sessionHashedID: signedIn.session.hashedID, createdAt: now,
            expiresAt: now.addingTimeInterval(lifetime))
        stored.resource = request.resource
        stored.dpopKeyThumbprint = request.dpopKeyThumbprint
        try environment.store.transaction { transaction in try transaction.insert(stored) }
        return AuthorizationResponse.success(code: code, request: request, issuer: environment.issuer, status: status)
    }

    /// The error redirect for `request`.
    static func failure(
        _ error: AuthorizationRedirectError, _ request: AuthorizationRequest, _ environment: PageEnvironment,
        _ status: HTTPStatus = .found
    ) -> Response {
        AuthorizationResponse.failure(
            error, redirectURI: request.redirectURI, state: request.state, issuer: environment.issuer, status: status)
    }

    /// A redirect to one of the pages with the sealed request in its query.
    static func redirect(
        to path: String, carrying request: AuthorizationRequest, environment: PageEnvironment, status: HTTPStatus
    ) throws -> Response {
        PageLayout.redirect(to: try location(of: path, carrying: request, environment: environment), status: status)
    }

    /// `path?request=<seal>`.
    static func location(of path: String, carrying request: AuthorizationRequest, environment: PageEnvironment) throws
        -> String
    {
        guard let seal = PendingRequestSeal.seal(request, keys: environment.keys) else {
            throw PageProblem.serverFailure
        }
        return AuthorizationResponse.location(path, [(requestField, seal)])
    }

    /// The pending request of a page that may also be opened on its own (sign-in, sign-up):
    /// nil without a `request` field, else as ``pendingRequest(_:environment:)``.
    static func optionalPendingRequest(_ seal: String?, environment: PageEnvironment) throws
        -> PendingAuthorizationRequest?
    {
        guard seal != nil else { return nil }
        return try pendingRequest(seal, environment: environment)
    }

    /// `seal` if it still names a pending request a page can carry on (a mailed link's), else
    /// nil: a stale one is dropped, and the person goes back to the app by hand.
    static func liveSeal(_ seal: String?, environment: PageEnvironment) -> String? {
        guard let seal, !seal.isEmpty, (try? pendingRequest(seal, environment: environment)) != nil else { return nil }
        return seal
    }

    /// The pending request named by a page's `request` field, with its client (which must
    /// still exist and still have the redirect URI registered).
    static func pendingRequest(_ seal: String?, environment: PageEnvironment) throws -> PendingAuthorizationRequest {
        try pendingRequest(seal, keys: environment.keys, store: environment.store, now: environment.now)
    }

    /// The request `seal` carries, opened with `keys`, with its client read from `store`; as
    /// ``pendingRequest(_:environment:)`` for callers that hold only these parts (the companion).
    static func pendingRequest(
        _ seal: String?, keys: KeyRing, store: any Store, now: @Sendable () -> Date
    ) throws -> PendingAuthorizationRequest {
        guard let seal, !seal.isEmpty else { throw PageProblem.invalidRequest }
        let request: AuthorizationRequest
        do {
            request = try PendingRequestSeal.open(seal, keys: keys, now: now())
        } catch .expired(let stale) {
            let name = try store.read { try $0.client(id: stale.clientID) }?.name
            throw PageProblem.expiredRequest(appName: name)
        } catch {
            throw PageProblem.invalidRequest
        }
        guard let client = try store.read({ try $0.client(id: request.clientID) }) else {
            throw PageProblem.unknownClient
        }
        if client.suspendedAt != nil { throw PageProblem.suspendedClient(appName: client.name) }
        guard !request.isDeviceSignIn else { return PendingAuthorizationRequest(request: request, client: client) }
        do {
            _ = try RedirectURIPolicy.resolve(request.redirectURI, for: client)
        } catch {
            throw PageProblem(error, appName: client.name)
        }
        return PendingAuthorizationRequest(request: request, client: client)
    }
}
