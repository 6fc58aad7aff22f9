import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The companion's side of the provider's brokered authorization: it forwards an app's
/// authorization request with its own access token and turns the answers into
/// ``CompanionBrokerAnswer``s. Shared by every companion (the desktop agent here; a phone's
/// companion app would use the same calls).
///
/// `POST /oauth/companion/authorize` (the companion's token; form: the app's request) answers the code, or a
/// consent ticket with what to show; `POST /oauth/companion/consent` (`ticket`, `decision`)
/// answers the code or `access_denied`. The code is bound to the app's client, redirect URI
/// and PKCE challenge, so only the asking app can redeem it.
public struct CompanionBroker: Sendable {
    /// The provider.
    public let provider: Provider
    /// The `Accept-Language` sent, so scope descriptions come in the person's language.
    public let language: String
    let http: HTTPClient

    /// A broker at `provider`, asking for texts in `language` (`en`, `zh-CN`).
    public init(provider: Provider, language: String = "en") {
        self.provider = provider
        self.language = language
        http = .shared
    }

    /// The endpoint under the issuer.
    func endpoint(_ name: String) throws(AuthorizationError) -> URL {
        guard let issuer = provider.issuer, let base = URL(string: issuer) else {
            throw AuthorizationError(.invalidInput, "the provider has no issuer for the companion endpoints")
        }
        return base.appendingPathComponent("oauth/companion/\(name)")
    }

    /// Puts the companion's credentials on one request to the companion endpoints, just before
    /// it is sent: `Authorization: Bearer`, or for a DPoP-bound grant `Authorization: DPoP` and
    /// a proof for that request (``AuthorizationManager/authorizedRequest(_:retrying:)`` is one).
    /// Called again for a retry, since a proof names one request at one moment.
    /// An error it throws that is not an ``AuthorizationError`` reaches the caller as one of
    /// kind ``AuthorizationError/Code/storage`` (the credentials could not be read).
    public typealias RequestAuthorizer = @Sendable (URLRequest) async throws -> URLRequest

    /// Forwards the app's `request` (an `authorize` message) with the companion's `accessToken`
    /// as a bearer token; see ``authorize(_:authorizing:)``.
    public func authorize(_ request: CompanionRequest, accessToken: String) async throws(AuthorizationError)
        -> CompanionBrokerAnswer
    {
        try await authorize(request, authorizing: Self.bearer(accessToken))
    }

    /// Forwards the app's `request` (an `authorize` message) with the credentials `authorizing`
    /// puts on it: the companion's manager's ``AuthorizationManager/authorizedRequest(_:retrying:)``,
    /// so a DPoP-bound companion token goes with a proof of the companion's key.
    ///
    /// Throws ``AuthorizationError`` carrying the provider's OAuth error: `invalid_token` when
    /// the access token is no longer good (refresh and retry), `login_required`, and the
    /// request's own errors (`invalid_request`, `invalid_scope`, `unauthorized_client`, …).
    public func authorize(_ request: CompanionRequest, authorizing: RequestAuthorizer) async throws(AuthorizationError)
        -> CompanionBrokerAnswer
    {
        if let requestURI = request.requestURI, let clientID = request.clientID {
            // A pushed request (RFC 9126): the provider uses only what was pushed.
            let reply = try await post(
                try endpoint("authorize"), [("client_id", clientID), ("request_uri", requestURI)],
                authorizing: authorizing)
            return try Self.answer(reply, clientID: clientID)
        }
        var fields: [(String, String)] = [("response_type", "code")]
        let optional: [(String, String?)] = [
            ("client_id", request.clientID), ("redirect_uri", request.redirectURI), ("scope", request.scope),
            ("state", request.state), ("nonce", request.nonce), ("code_challenge", request.codeChallenge),
            ("code_challenge_method", request.codeChallengeMethod ?? "S256"), ("prompt", request.prompt),
        ]
        for case (let name, let value?) in optional { fields.append((name, value)) }
        let reply = try await post(try endpoint("authorize"), fields, authorizing: authorizing)
        return try Self.answer(reply, clientID: request.clientID ?? "")
    }

    /// Sends the person's decision on `consent` with `accessToken` as a bearer token; see
    /// ``decide(_:allow:authorizing:)``.
    public func decide(_ consent: CompanionConsent, allow: Bool, accessToken: String) async throws(AuthorizationError)
        -> CompanionBrokerAnswer
    {
        try await decide(consent, allow: allow, authorizing: Self.bearer(accessToken))
    }

    /// Sends the person's decision on `consent` with the credentials `authorizing` puts on it;
    /// `.code` when allowed, throws ``AuthorizationError/Code/accessDenied`` when declined.
    public func decide(_ consent: CompanionConsent, allow: Bool, authorizing: RequestAuthorizer)
        async throws(AuthorizationError) -> CompanionBrokerAnswer
    {
        let reply = try await post(
            try endpoint("consent"), [("ticket", consent.ticket), ("decision", allow ? "allow" : "deny")],
            authorizing: authorizing)
        return try Self.answer(reply, clientID: consent.clientID)
    }

    /// POSTs `fields` to `url` with the credentials `authorizing` adds. A `use_dpop_nonce`
    /// refusal (401, RFC 9449 §9) is authorized again with the server's nonce and sent once
    /// more.
    private func post(_ url: URL, _ fields: [(String, String)], authorizing: RequestAuthorizer)
        async throws(AuthorizationError) -> HTTPReply
    {
        var request = URLRequest(url: url, timeoutInterval: http.timeout)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue(language, forHTTPHeaderField: "Accept-Language")
        request.httpBody = Data(FormEncoding.encode(fields).utf8)
        var reply = try await http.send(try await Self.authorize(request, with: authorizing))
        let asksForNonce = reply.status == 401 && reply.header("WWW-Authenticate")?.contains("use_dpop_nonce") == true
        if DPoPNonceBook.remember(from: reply, of: url), asksForNonce {
            reply = try await http.send(try await Self.authorize(request, with: authorizing))
            DPoPNonceBook.remember(from: reply, of: url)
        }
        return reply
    }

    /// `request` as `authorizing` makes it, its failure an ``AuthorizationError``.
    private static func authorize(_ request: URLRequest, with authorizing: RequestAuthorizer)
        async throws(AuthorizationError) -> URLRequest
    {
        do { return try await authorizing(request) } catch {
            throw AuthorizationError.wrap(error, as: .storage, "the companion's credentials cannot be read")
        }
    }

    /// Puts `accessToken` on a request as a bearer token.
    static func bearer(_ accessToken: String) -> RequestAuthorizer {
        { request in
            var request = request
            request.setValue("Bearer \(accessToken)", forHTTPHeaderField: "Authorization")
            return request
        }
    }

    /// The answer `reply` stands for.
    static func answer(_ reply: HTTPReply, clientID: String) throws(AuthorizationError) -> CompanionBrokerAnswer {
        guard let json = reply.jsonObject else {
            throw AuthorizationError(.invalidResponse, "the companion endpoint answered HTTP \(reply.status), not JSON")
        }
        if json["error"] != nil || reply.status != 200 { throw reply.failure("the companion endpoint") }
        if let code = json["code"]?.stringValue, let state = json["state"]?.stringValue {
            return .code(code: code, state: state, issuer: json["iss"]?.stringValue)
        }
        guard json["consent_required"]?.boolValue == true, let ticket = json["ticket"]?.stringValue else {
            throw AuthorizationError(.invalidResponse, "the companion endpoint answered neither a code nor a consent")
        }
        let client = json["client"]?.objectValue ?? [:]
        let permissions = (json["scopes"]?.arrayValue ?? []).compactMap { item -> CompanionConsent.Permission? in
            guard let object = item.objectValue, let name = object["name"]?.stringValue else { return nil }
            return .init(name: name, description: object["description"]?.stringValue ?? name)
        }
        let user = json["user"]?.objectValue
        return .consentRequired(
            CompanionConsent(
                ticket: ticket, kind: CompanionConsentKind(rawValue: json["kind"]?.stringValue ?? "") ?? .consent,
                clientID: client["client_id"]?.stringValue ?? clientID,
                clientName: (client["name"] ?? client["client_name"])?.stringValue ?? clientID,
                logoURL: (client["logo_uri"] ?? client["logo_url"])?.stringValue,
                privacyURL: (client["policy_uri"] ?? client["privacy_url"])?.stringValue,
                permissions: permissions,
                personName: (user?["name"] ?? json["user_name"])?.stringValue))
    }
}
