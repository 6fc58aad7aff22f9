import Foundation
import PorticoCrypto
import PorticoHTTP
import PorticoStore

/// Checks the parameters of an authorization request, in the order that keeps redirects safe:
/// first the client and its redirect URI (failures show a page and never redirect), then
/// everything else (failures go back to the client as RFC 6749 §4.1.2.1 errors).
struct AuthorizationRequestValidator {
    /// What the checks concluded.
    enum Outcome {
        /// The request is good.
        case valid(AuthorizationRequest, Client)
        /// The client or redirect URI cannot be trusted: show this problem, do not redirect.
        case page(PageProblem)
        /// The client and redirect URI are good but the rest is not: redirect this error.
        case redirect(AuthorizationRedirectError, redirectURI: String, state: String?)
    }

    /// Parameters that may appear at most once (OAuth 2.1 §3.1: "MUST NOT be included more
    /// than once").
    static let singleValued: Set<String> = [
        "response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge",
        "code_challenge_method", "nonce", "prompt", "max_age", "login_hint", "response_mode", "request",
        "request_uri", "display", "ui_locales", "id_token_hint", "acr_values", "claims", "resource",
        "dpop_jkt",
    ]

    /// Longest `state` echoed back; longer ones are refused rather than truncated.
    static let maximumStateLength = 2048
    /// Longest `nonce` carried into the ID token.
    static let maximumNonceLength = 512
    /// Longest `login_hint` shown in the e-mail field.
    static let maximumLoginHintLength = 320

    /// Where clients and scopes are looked up.
    let store: any Store
    /// The clock.
    let now: @Sendable () -> Date
    /// Whether every client must push its requests (`serve --require-par`), not only those
    /// registered with `--require-par`.
    var requiresPAR = false

    /// Validates `parameters` (the query of a GET or the form of a POST, or what
    /// ``AuthorizationRequestSource`` made of a pushed request or a request object).
    ///
    /// - Parameter pushed: whether the parameters come from `POST /oauth/par` (or are being
    ///   pushed there); a client registered with `--require-par` is refused otherwise.
    func validate(_ parameters: FormParameters, pushed: Bool = false) throws -> Outcome {
        func single(_ name: String) -> String? {
            let values = parameters.values(for: name)
            return values.count == 1 ? values[0] : nil
        }
        func isRepeated(_ name: String) -> Bool { parameters.values(for: name).count > 1 }

        // An id no backend can hold names no client, and must not reach the store.
        guard !isRepeated("client_id"), let clientID = single("client_id"), !clientID.isEmpty,
            StoredText.canHold(clientID)
        else {
            return .page(.unknownClient)
        }
        guard let client = try store.read({ try $0.client(id: clientID) }) else {
            return .page(.unknownClient)
        }
        // A page, never an error sent to the app: the person learns why, the app nothing new.
        if client.suspendedAt != nil { return .page(.suspendedClient(appName: client.name)) }
        // RFC 9126 §5: a page, as the redirect URI of an unpushed request was never checked
        // the way the client asked for.
        if (requiresPAR || client.requiresPAR) && !pushed { return .page(.malformedRequest(appName: client.name)) }
        guard !isRepeated("redirect_uri") else { return .page(.malformedRequest(appName: client.name)) }
        let redirectURI: String
        do {
            redirectURI = try RedirectURIPolicy.resolve(single("redirect_uri"), for: client)
        } catch {
            return .page(PageProblem(error, appName: client.name))
        }
        let state = single("state")
        func fail(_ error: AuthorizationRedirectError) -> Outcome {
            .redirect(error, redirectURI: redirectURI, state: state.flatMap { $0.isEmpty ? nil : $0 })
        }

        if let repeated = Self.singleValued.sorted().first(where: isRepeated) {
            return fail(.invalidRequest("The \(repeated) parameter was sent more than once."))
        }
        // A pushed request's request_uri and a verified request object were resolved before
        // (AuthorizationRequestSource); what is left here is refused.
        if single("request_uri") != nil { return fail(.requestURINotSupported) }
        if single("request") != nil { return fail(.invalidRequest("Send a request object without request_uri.")) }
        if let mode = single("response_mode"), mode != "query" {
            return fail(.invalidRequest("Only response_mode=query is supported."))
        }
        guard let responseType = single("response_type"), !responseType.isEmpty else {
            return fail(.invalidRequest("The response_type parameter is missing."))
        }
        guard responseType == "code" else {
            return fail(.unsupportedResponseType("Only response_type=code is supported."))
        }
        guard client.allowedGrantTypes.contains(AuthorizationCodeGrant.grantType) else {
            return fail(.unauthorizedClient("This client may not use the authorization code grant."))
        }
        if let state, state.utf8.count > Self.maximumStateLength {
            return fail(.invalidRequest("The state parameter is too long."))
        }
        guard let challenge = single("code_challenge"), !challenge.isEmpty else {
            return fail(.invalidRequest("PKCE is required: send code_challenge with code_challenge_method=S256."))
        }
        guard let method = single("code_challenge_method") else {
            return fail(.invalidRequest("code_challenge_method is required and must be S256 (plain is not allowed)."))
        }
        guard method == "S256" else {
            return fail(.invalidRequest("code_challenge_method must be S256 (plain is not allowed)."))
        }
        guard PKCE.isValidVerifier(challenge) else {
            return fail(.invalidRequest("code_challenge must be 43 to 128 characters of [A-Za-z0-9-._~]."))
        }
        let scopes = ScopeCatalog.parse(single("scope"))
        guard !scopes.isEmpty else { return fail(.invalidScope("The request must name at least one scope.")) }
        let supported = Set(try store.read { try ScopeCatalog.supportedNames(in: $0) })
        if let unknown = scopes.first(where: { !supported.contains($0) }) {
            return fail(.invalidScope("The scope \(unknown) is not known."))
        }
        let allowed = client.allowedScopes.isEmpty ? ScopeCatalog.builtInNames : Set(client.allowedScopes)
        if let refused = scopes.first(where: { !allowed.contains($0) }) {
            return fail(.invalidScope("This client may not request the scope \(refused)."))
        }
        if scopes.contains(AccountLinkScope.name), let refusal = AccountLinkScope.refusal(for: client) {
            return fail(.invalidScope(refusal))
        }
        if scopes.contains(NativeSSO.scope), client.ssoGroup == nil || !scopes.contains("openid") {
            return fail(.invalidScope("device_sso needs openid and a client in an SSO group (--sso-group)."))
        }
        if scopes.contains(CompanionClients.scope),
            try !store.read({ try CompanionClients.permits(scopes, to: client, in: $0) })
        {
            return fail(.invalidScope(CompanionClients.refusal))
        }
        var resource: String?
        if let requested = single("resource") {
            do {
                resource = try store.read { try ResourceIndicators.check(requested, for: client, in: $0) }
            } catch let error as OAuthError {
                return fail(AuthorizationRedirectError(code: error.code, description: error.description))
            }
        }
        let dpopKeyThumbprint = single("dpop_jkt")
        if let dpopKeyThumbprint, !DPoPProofChecker.isThumbprint(dpopKeyThumbprint) {
            return fail(.invalidRequest("dpop_jkt must be a JWK SHA-256 thumbprint (43 base64url characters)."))
        }
        var prompts = Set<Prompt>()
        for value in (single("prompt") ?? "").split(separator: " ") {
            guard let prompt = Prompt(rawValue: String(value)) else {
                return fail(.invalidRequest("The prompt value \(value) is not supported."))
            }
            prompts.insert(prompt)
        }
        if prompts.contains(.none) && prompts.count > 1 {
            return fail(.invalidRequest("prompt=none cannot be combined with other values."))
        }
        var maximumAge: Int?
        if let text = single("max_age") {
            guard let value = Int(text), value >= 0, text.allSatisfy(\.isASCII) else {
                return fail(.invalidRequest("max_age must be a non-negative number of seconds."))
            }
            maximumAge = value
        }
        let nonce = single("nonce").flatMap { $0.isEmpty ? nil : $0 }
        if let nonce, nonce.utf8.count > Self.maximumNonceLength {
            return fail(.invalidRequest("The nonce parameter is too long."))
        }
        var loginHint = single("login_hint").flatMap { $0.isEmpty ? nil : $0 }
        if let hint = loginHint, hint.utf8.count > Self.maximumLoginHintLength { loginHint = nil }

        let now = now()
        let arrival = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        var since: Date?
        if let maximumAge { since = arrival.addingTimeInterval(-TimeInterval(maximumAge)) }
        if prompts.contains(.login) || prompts.contains(.selectAccount) { since = arrival }
        var request = AuthorizationRequest(
            id: SecureRandom.token(bits: 128), clientID: client.id, redirectURI: redirectURI, scopes: scopes,
            state: state.flatMap { $0.isEmpty ? nil : $0 }, nonce: nonce, codeChallenge: challenge, prompts: prompts,
            loginHint: loginHint, authenticatedSince: since,
            language: PageLanguage.preferred(uiLocales: single("ui_locales")), issuedAt: arrival,
            expiresAt: arrival.addingTimeInterval(PendingRequestSeal.lifetime), resource: resource)
        request.dpopKeyThumbprint = dpopKeyThumbprint
        return .valid(request, client)
    }
}
