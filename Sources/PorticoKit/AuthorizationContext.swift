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

    /// The authorization request URL that sends the code to `redirectURI` (the URI actually
    /// listened on, for example with the loopback port filled in).
    public func authorizationURL(redirectURI: URL) -> URL {
        pending.authorizationURL(provider: provider, clientID: clientID, redirectURI: redirectURI)
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
