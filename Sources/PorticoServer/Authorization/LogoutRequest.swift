import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// A checked RP-initiated logout request (OpenID Connect RP-Initiated Logout 1.0 §2, §3).
///
/// Checks, in order: no parameter twice; `id_token_hint` is an ID token this provider signed
/// (any published key; `typ` JWT, so access tokens and sealed requests do not pass), for this
/// issuer, with a subject and an audience; expired ones are accepted, as the spec asks, since an
/// app often signs out long after its ID token expired. `client_id`, if sent, names a known
/// client that is among the token's audience; without it the token's single audience is the
/// client. `post_logout_redirect_uri` needs a client and must equal one of its registered ones
/// exactly; anything else is a page, never a redirect.
struct LogoutRequest: Sendable {
    /// What a verified `id_token_hint` says about whom the app signed in.
    struct Hint: Sendable {
        /// `sub`.
        let subject: String
        /// `auth_time`, if present: which sign-in the token came from.
        let authTime: Date?
        /// `sid`, if present (apps told of sign-outs): which browser session it came from.
        var sessionID: String? = nil
    }

    /// Parameters that may appear at most once.
    static let singleValued = [
        "id_token_hint", "client_id", "post_logout_redirect_uri", "state", "ui_locales", "logout_hint",
    ]
    /// Longest `state` returned.
    static let maximumStateLength = 2048

    /// The app that asked, when it said (by `client_id` or the hint's audience).
    var client: Client?
    /// Where to send the browser afterwards: one of the client's registered URIs.
    var postLogoutRedirectURI: String?
    /// The app's `state`, appended to the redirect.
    var state: String?
    /// The verified hint, if one was sent.
    var hint: Hint?
    /// The page language the app asked for with `ui_locales`, when it named a supported one.
    var language: PageLanguage?

    /// Validates `parameters` (the query of a GET or the form of a POST).
    static func validate(_ parameters: FormParameters, environment: PageEnvironment) throws -> LogoutRequest {
        for name in singleValued where parameters.values(for: name).count > 1 {
            throw PageProblem.invalidLogoutRequest(appName: nil)
        }
        func value(_ name: String) -> String? {
            parameters[name].flatMap { $0.isEmpty ? nil : $0 }
        }
        var request = LogoutRequest()
        request.language = PageLanguage.preferred(uiLocales: value("ui_locales"))
        var audience: [String] = []
        if let token = value("id_token_hint") {
            let claims = try verifiedClaims(of: token, environment: environment)
            guard let subject = claims.subject, !claims.audience.isEmpty else {
                throw PageProblem.invalidLogoutRequest(appName: nil)
            }
            let authTime = claims["auth_time"]?.integerValue.map { Date(timeIntervalSince1970: TimeInterval($0)) }
            request.hint = Hint(subject: subject, authTime: authTime, sessionID: claims["sid"]?.stringValue)
            audience = claims.audience
        }
        var clientID = value("client_id")
        if let named = clientID, !audience.isEmpty, !audience.contains(named) {
            throw PageProblem.invalidLogoutRequest(appName: nil)
        }
        if clientID == nil && audience.count == 1 { clientID = audience[0] }
        if let clientID {
            // An id no backend can hold names no client, and must not reach the store.
            guard StoredText.canHold(clientID), let client = try environment.store.read({ try $0.client(id: clientID) })
            else {
                throw PageProblem.invalidLogoutRequest(appName: nil)
            }
            request.client = client
        }
        if let uri = value("post_logout_redirect_uri") {
            guard let client = request.client else { throw PageProblem.invalidLogoutRequest(appName: nil) }
            // Byte for byte, and the registered spelling is where the browser goes.
            guard let registered = client.postLogoutRedirectURIs.first(where: { RedirectURIPolicy.sameBytes($0, uri) })
            else {
                throw PageProblem.redirectNotRegistered(appName: client.name)
            }
            request.postLogoutRedirectURI = registered
            if let state = value("state") {
                guard state.utf8.count <= maximumStateLength else {
                    throw PageProblem.invalidLogoutRequest(appName: client.name)
                }
                request.state = state
            }
        }
        return request
    }

    /// The claims of an ID token this provider signed for this issuer, expired or not.
    private static func verifiedClaims(of token: String, environment: PageEnvironment) throws -> JWTClaims {
        do {
            let claims = try environment.keys.verifier(for: token).verify(
                token, algorithms: Set(KeyRing.algorithms), type: "JWT"
            ).claims()
            guard claims.issuer == environment.issuer else { throw PageProblem.invalidLogoutRequest(appName: nil) }
            return claims
        } catch {
            throw PageProblem.invalidLogoutRequest(appName: nil)
        }
    }

    /// Whether the hint proves that the app speaks for the session `signedIn`: same person, and
    /// the same sign-in (`auth_time` equals the session's), so a token from an older session on
    /// another device does not sign this browser out unasked (spec §2: otherwise the OP must
    /// ask).
    func provesSession(_ signedIn: SignInSession) -> Bool {
        // A `sid` names this very session as the hint's app saw it (its sector's for a pairwise
        // app, whose `sub` is not the account id either).
        if let sid = hint?.sessionID, let client,
            ConstantTime.equals(
                sid, BackChannelLogout.sessionID(browserSessionHashedID: signedIn.session.hashedID, client: client))
        {
            return true
        }
        guard let hint, hint.subject == signedIn.user.id, let authTime = hint.authTime else { return false }
        return TokenIssuer.seconds(authTime) == TokenIssuer.seconds(signedIn.session.authTime)
    }

    /// Where the browser goes once the logout is done (or declined): the registered URI with
    /// `state`, or nil for Portico's own page.
    var redirectLocation: String? {
        guard let uri = postLogoutRedirectURI else { return nil }
        guard let state else { return uri }
        return AuthorizationResponse.location(uri, [("state", state)])
    }

    /// The fields the confirmation form carries, so its POST is validated like the app's GET.
    var formFields: [(String, String)] {
        var fields: [(String, String)] = []
        if let client { fields.append(("client_id", client.id)) }
        if let postLogoutRedirectURI { fields.append(("post_logout_redirect_uri", postLogoutRedirectURI)) }
        if let state { fields.append(("state", state)) }
        if let language { fields.append(("ui_locales", language.rawValue)) }
        return fields
    }
}
