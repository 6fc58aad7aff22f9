import Foundation
import PorticoCrypto

/// Carries a validated ``AuthorizationRequest`` through the browser without trusting it: the
/// request is a compact JWS signed with the provider's own current signing key.
///
/// Why this design: the request must survive the sign-in and consent pages, on whatever node
/// serves them. The signing keys already live in the shared database and every node holds them
/// parsed in its `KeyRing`, so any node can verify what another sealed, key rotation is
/// harmless (the verifier keeps retired keys), and nothing new must be stored or cleaned up.
/// The browser sees only what it sent in the authorization URL anyway. The header's `typ` is
/// Portico's own and the payload has no `iss`, `sub` or `aud`, so a seal can never pass as an
/// ID token or access token. A seal expires after ``lifetime``.
enum PendingRequestSeal {
    /// The JWS `typ` of a sealed request.
    static let type = "portico-authorization-request+jwt"
    /// How long a person has to sign in and decide.
    static let lifetime: TimeInterval = 30 * 60

    /// Why a seal was not accepted.
    enum Problem: Error, Equatable {
        /// Not a seal this provider made (tampered, truncated, foreign, or signed by a key since
        /// deleted).
        case invalid
        /// Genuine but too old; the request is given so the page can name the app.
        case expired(AuthorizationRequest)
    }

    /// The algorithms seals are signed with, in order of preference.
    private static let algorithms: [SignatureAlgorithm] = [.es256, .edDSA, .rs256]

    /// The sealed form of `request`, or nil if the provider has no signing key (never the case
    /// after start-up, which creates them).
    static func seal(_ request: AuthorizationRequest, keys: KeyRing) -> String? {
        guard let key = algorithms.lazy.compactMap({ keys.signer(for: $0) }).first else { return nil }
        var claims = JWTClaims(expiresAt: request.expiresAt, issuedAt: request.issuedAt, jwtID: request.id)
        claims["client_id"] = .string(request.clientID)
        claims["redirect_uri"] = .string(request.redirectURI)
        claims["scope"] = .string(request.scopes.joined(separator: " "))
        claims["code_challenge"] = .string(request.codeChallenge)
        if let state = request.state { claims["state"] = .string(state) }
        if let nonce = request.nonce { claims["nonce"] = .string(nonce) }
        if let hint = request.loginHint { claims["login_hint"] = .string(hint) }
        if let language = request.language { claims["ui_locales"] = .string(language.rawValue) }
        if !request.prompts.isEmpty {
            claims["prompt"] = .string(request.prompts.map(\.rawValue).sorted().joined(separator: " "))
        }
        if let userCode = request.deviceUserCode { claims["device_user_code"] = .string(userCode) }
        if let resource = request.resource { claims["resource"] = .string(resource) }
        if let thumbprint = request.dpopKeyThumbprint { claims["dpop_jkt"] = .string(thumbprint) }
        if let since = request.authenticatedSince {
            claims["auth_since"] = .integer(Int64(since.timeIntervalSince1970.rounded(.down)))
        }
        return JWS.sign(claims: claims, key: key, type: type)
    }

    /// The request sealed in `token`, if this provider sealed it and it has not expired.
    static func open(_ token: String, keys: KeyRing, now: Date) throws(Problem) -> AuthorizationRequest {
        let claims: JWTClaims
        do {
            claims = try keys.verifier(for: token).verify(token, algorithms: Set(algorithms), type: type).claims()
        } catch {
            throw .invalid
        }
        guard let request = request(from: claims) else { throw .invalid }
        guard now < request.expiresAt else { throw .expired(request) }
        return request
    }

    /// Rebuilds the request from verified claims; nil if any required member is missing.
    private static func request(from claims: JWTClaims) -> AuthorizationRequest? {
        guard let id = claims.jwtID, let issuedAt = claims.issuedAt, let expiresAt = claims.expiresAt,
            let clientID = claims["client_id"]?.stringValue, let redirectURI = claims["redirect_uri"]?.stringValue,
            let scope = claims["scope"]?.stringValue, let challenge = claims["code_challenge"]?.stringValue
        else { return nil }
        let prompts = Set(
            (claims["prompt"]?.stringValue ?? "").split(separator: " ").compactMap {
                Prompt(rawValue: String($0))
            })
        let since = claims["auth_since"]?.doubleValue.map { Date(timeIntervalSince1970: $0) }
        var request = AuthorizationRequest(
            id: id, clientID: clientID, redirectURI: redirectURI, scopes: ScopeCatalog.parse(scope),
            state: claims["state"]?.stringValue, nonce: claims["nonce"]?.stringValue, codeChallenge: challenge,
            prompts: prompts, loginHint: claims["login_hint"]?.stringValue, authenticatedSince: since,
            language: claims["ui_locales"]?.stringValue.flatMap(PageLanguage.init(rawValue:)), issuedAt: issuedAt,
            expiresAt: expiresAt, resource: claims["resource"]?.stringValue,
            deviceUserCode: claims["device_user_code"]?.stringValue)
        request.dpopKeyThumbprint = claims["dpop_jkt"]?.stringValue
        return request
    }
}
