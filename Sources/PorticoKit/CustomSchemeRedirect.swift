import Foundation

/// For apps that own a URL scheme (`com.example.app:/callback`): opens the authorization URL
/// in the browser and waits for the app to forward the callback to
/// ``AuthorizationManager/handleOpenURL(_:)``.
///
/// When the person returns to the app without finishing, the app calls
/// ``AuthorizationManager/applicationDidBecomeActive()``; if no callback follows within
/// ``returnGrace`` (3 s by default), the authorization ends as cancelled by the user instead of
/// waiting for a time-out minutes later.
public struct CustomSchemeRedirect: UserAgent {
    /// How the URL reaches the browser.
    public var opener: BrowserOpener
    /// How long a callback may lag behind the app becoming active again.
    public var returnGrace: Duration

    /// A custom-scheme agent opening URLs with `opener`.
    public init(opener: BrowserOpener = .system, returnGrace: Duration = .seconds(3)) {
        self.opener = opener
        self.returnGrace = returnGrace
    }

    /// Available when the redirect URI has a custom scheme.
    public func isAvailable(for context: AuthorizationContext) -> Bool {
        guard let scheme = context.redirectURI?.scheme?.lowercased() else { return false }
        return scheme != "http" && scheme != "https"
    }

    /// Opens the browser and waits for the forwarded callback.
    public func authorize(_ context: AuthorizationContext) async throws -> AuthorizationOutcome {
        guard isAvailable(for: context), let redirectURI = context.redirectURI else {
            throw AuthorizationError(.invalidInput, "CustomSchemeRedirect needs a custom-scheme redirect URI")
        }
        let waiter = context.installRedirectWaiter(to: redirectURI, grace: returnGrace)
        defer { context.redirects.remove(waiter) }
        try await opener.open(context.authorizationURL(redirectURI: redirectURI))
        return .callback(try await waiter.wait(), redirectURI: redirectURI)
    }
}
