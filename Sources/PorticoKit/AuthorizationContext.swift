import Foundation

/// One interactive authorization as a ``UserAgent`` sees it: who asks, for what, and the URL
/// to show.
public struct AuthorizationContext: Sendable {
    /// The provider whose pages are shown.
    public let provider: Provider
    /// The app's client id.
    public let clientID: String
    /// The scopes asked for.
    public let scopes: [Scope]
    /// The redirect URI the app registered (a loopback agent keeps its path, not its port).
    public let redirectURI: URL?
    /// Whether the app wants a code for its backend rather than tokens.
    public let grantType: AuthorizeRequest.GrantType

    let pending: PendingAuthorization
    let http: HTTPClient
    let redirects: RedirectSlot
    /// The key that binds the tokens (DPoP), when the manager uses one with this provider.
    var dpopKey: DPoPKey? = nil
    /// Whether and how the request is pushed first (RFC 9126).
    var pushedAuthorization: PushedAuthorizationMode = .whenAdvertised

    /// The authorization request URL that sends the code to `redirectURI` (the URI actually
    /// listened on, for example with the loopback port filled in), every parameter in its
    /// query. It pushes nothing: agents use ``authorizationRequestURL(redirectURI:)``, which
    /// pushes when the provider offers PAR.
    public func authorizationURL(redirectURI: URL) -> URL {
        pending.authorizationURL(provider: provider, clientID: clientID, redirectURI: redirectURI)
    }

    /// The URL to show the person for a code sent to `redirectURI`: when the provider
    /// advertises a PAR endpoint (and the manager's ``PushedAuthorizationMode`` allows), the
    /// parameters are pushed there first and the URL carries only `client_id` and the
    /// `request_uri` (RFC 9126 §4); otherwise it is ``authorizationURL(redirectURI:)``.
    ///
    /// Call it once per attempt, just before opening the URL: a `request_uri` works once and
    /// for a minute. A refused push throws the provider's error (for example
    /// `invalid_request` with its description) and nothing is shown.
    public func authorizationRequestURL(redirectURI: URL) async throws(AuthorizationError) -> URL {
        guard let pushed = try await pushedRequest(redirectURI: redirectURI) else {
            return authorizationURL(redirectURI: redirectURI)
        }
        return pending.pushedAuthorizationURL(provider: provider, clientID: clientID, requestURI: pushed.requestURI)
    }

    /// Pushes the request for `redirectURI` to the provider's PAR endpoint when it advertises
    /// one and the manager's ``PushedAuthorizationMode`` allows; nil when nothing was pushed.
    /// `impliesLogin` as in ``PendingAuthorization/authorizationParameters(clientID:redirectURI:impliesLogin:)``.
    func pushedRequest(
        redirectURI: URL, impliesLogin: Bool = true
    ) async throws(AuthorizationError) -> PushedAuthorizationResponse? {
        guard let endpoint = provider.pushedAuthorizationRequestEndpoint else { return nil }
        // Bind the code only when the app redeems it: a backend that redeems has not the key.
        let bindingKey = grantType == .accessToken ? dpopKey : nil
        var parameters = pending.authorizationParameters(
            clientID: clientID, redirectURI: redirectURI, impliesLogin: impliesLogin)
        switch pushedAuthorization {
        case .never:
            return nil
        case .whenAdvertised:
            return try await PushedAuthorizationClient(http: http, dpopKey: bindingKey)
                .push(PushedAuthorizationRequest(endpoint: endpoint, clientID: clientID, parameters: parameters))
        case .through(let push):
            // The backend cannot sign the installation's proof; `dpop_jkt` binds the code instead.
            if let bindingKey { parameters.append((name: "dpop_jkt", value: bindingKey.thumbprint)) }
            do {
                return try await push(
                    PushedAuthorizationRequest(endpoint: endpoint, clientID: clientID, parameters: parameters))
            } catch {
                throw AuthorizationError.wrap(error, as: .network, "the app's backend could not push the request")
            }
        }
    }

    /// Installs the waiter for a callback to `redirectURI` that the app will hand the manager
    /// through `handleOpenURL(_:)`; installed before the browser opens, so no callback can
    /// arrive unclaimed.
    ///
    /// Throws when another custom-scheme authorization of the manager is still waiting.
    func installRedirectWaiter(to redirectURI: URL, grace: Duration) throws(AuthorizationError) -> RedirectWaiter {
        let waiter = RedirectWaiter(redirectURI: redirectURI, state: pending.state, grace: grace)
        guard redirects.install(waiter) else {
            throw AuthorizationError(.invalidInput, "another custom-scheme authorization is already in progress")
        }
        return waiter
    }
}
