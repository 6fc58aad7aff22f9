import Foundation

/// For apps that own a URL scheme (`com.example.app:/callback`): opens the authorization URL
/// in the browser and waits for the app to forward the callback to
/// ``AuthorizationManager/handleOpenURL(_:)``.
///
/// When the person returns to the app without finishing, the app calls
/// ``AuthorizationManager/applicationDidBecomeActive()``; if no callback follows within
/// ``returnGrace`` (3 s by default), the authorization ends as cancelled by the user instead of
/// waiting for ``timeout``. Activations before the browser has opened (a system alert, the
/// switch itself) do not count, and each activation restarts the grace, so a person who went
/// back to the browser and finished there is not refused.
///
/// One custom-scheme authorization runs per manager at a time; a second one fails at once with
/// ``AuthorizationError/Code/invalidInput`` rather than silently replacing the first.
public struct CustomSchemeRedirect: UserAgent {
    /// How the URL reaches the browser.
    public var opener: BrowserOpener
    /// How long a callback may lag behind the app becoming active again.
    public var returnGrace: Duration
    /// The longest the person may take in the browser before ``AuthorizationError/Code/timedOut``.
    public var timeout: Duration

    /// A custom-scheme agent opening URLs with `opener`.
    public init(opener: BrowserOpener = .system, returnGrace: Duration = .seconds(3), timeout: Duration = .seconds(600))
    {
        self.opener = opener
        self.returnGrace = returnGrace
        self.timeout = timeout
    }

    /// Available when the redirect URI has a custom scheme.
    public func isAvailable(for context: AuthorizationContext) -> Bool {
        guard let scheme = context.redirectURI?.scheme?.lowercased() else { return false }
        return scheme != "http" && scheme != "https"
    }

    /// Opens the sign-out page in the same browser the sign-in used.
    public func endSession(at url: URL, redirectURI: URL?) async throws {
        try await opener.open(url)
    }

    /// Opens the browser and waits for the forwarded callback.
    public func authorize(_ context: AuthorizationContext) async throws -> AuthorizationOutcome {
        guard isAvailable(for: context), let redirectURI = context.redirectURI else {
            throw AuthorizationError(.invalidInput, "CustomSchemeRedirect needs a custom-scheme redirect URI")
        }
        let authorizationURL = try await context.authorizationRequestURL(redirectURI: redirectURI)
        let waiter = try context.installRedirectWaiter(to: redirectURI, grace: returnGrace)
        defer { context.redirects.remove(waiter) }
        waiter.startDeadline(timeout)
        try await opener.open(authorizationURL)
        waiter.browserOpened()
        return .callback(try await waiter.wait(), redirectURI: redirectURI)
    }
}
