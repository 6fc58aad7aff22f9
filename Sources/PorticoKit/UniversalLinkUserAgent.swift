import Foundation

/// The companion app's front door: opens the provider's sign-in page as a universal link, so
/// that the provider's own app (when installed, and claiming the authorization endpoint's
/// `https` URL) signs the person in with the session it already has; when no app takes the
/// link, the page opens in `fallback` (typically the in-app web session) instead.
///
/// The companion app returns through the app's redirect URI (a custom scheme, or an `https`
/// universal link of the app's own), which the app hands to
/// ``AuthorizationManager/handleOpenURL(_:)``, as with ``CustomSchemeRedirect``. So the link is
/// only tried when both ends can work: an `https` authorization endpoint and a redirect URI
/// that is not loopback `http` (another app cannot reach the app's loopback listener).
///
/// On iOS, ``init(fallback:returnGrace:timeout:)`` opens with `UIApplication.open(_:options:)`
/// and `.universalLinksOnly`, which fails at once when no installed app claims the URL (it
/// never opens Safari). The decision lives in ``init(fallback:returnGrace:timeout:openInApp:)``,
/// which takes any such opener.
public struct UniversalLinkUserAgent: UserAgent {
    /// Shows the page when no app takes the link, or when the link cannot be used.
    public var fallback: any UserAgent
    /// How long after the app becomes active again without a callback the sign-in is taken as
    /// abandoned (the person came back from the companion app without finishing).
    public var returnGrace: Duration
    /// The longest the companion app may take.
    public var timeout: Duration
    private let openInApp: @Sendable (URL) async -> Bool

    /// An agent that tries `openInApp` first: it opens the URL in an installed app that claims
    /// it as a universal link and answers true, or answers false and opens nothing.
    public init(
        fallback: any UserAgent, returnGrace: Duration = .seconds(3), timeout: Duration = .seconds(600),
        openInApp: @escaping @Sendable (URL) async -> Bool
    ) {
        self.fallback = fallback
        self.returnGrace = returnGrace
        self.timeout = timeout
        self.openInApp = openInApp
    }

    /// Whether the universal link is worth trying for `context`: an `https` authorization
    /// endpoint and a redirect URI another app can return through.
    public func triesUniversalLink(for context: AuthorizationContext) -> Bool {
        guard context.provider.authorizationEndpoint.scheme?.lowercased() == "https",
            let scheme = context.redirectURI?.scheme?.lowercased()
        else { return false }
        if scheme == "http" { return false }
        return true
    }

    /// Available when either way is: the link, or the fallback.
    public func isAvailable(for context: AuthorizationContext) -> Bool {
        triesUniversalLink(for: context) || fallback.isAvailable(for: context)
    }

    /// Ends the provider session in the fallback, which shows pages in the app.
    public func endSession(at url: URL, redirectURI: URL?) async throws {
        try await fallback.endSession(at: url, redirectURI: redirectURI)
    }

    /// The companion app's answer through the redirect URI, or the fallback's outcome when no
    /// app took the link.
    public func authorize(_ context: AuthorizationContext) async throws -> AuthorizationOutcome {
        guard triesUniversalLink(for: context), let redirectURI = context.redirectURI else {
            return try await fallback.authorize(context)
        }
        // Installed before the link opens, so an answer faster than `openInApp` is not lost.
        let waiter = try context.installRedirectWaiter(to: redirectURI, grace: returnGrace)
        let authorizationURL: URL
        do { authorizationURL = try await context.authorizationRequestURL(redirectURI: redirectURI) } catch {
            context.redirects.remove(waiter)
            throw error
        }
        let opened = await openInApp(authorizationURL)
        guard opened else {
            context.redirects.remove(waiter)
            return try await fallback.authorize(context)
        }
        defer { context.redirects.remove(waiter) }
        waiter.startDeadline(timeout)
        waiter.browserOpened()
        return .callback(try await waiter.wait(), redirectURI: redirectURI)
    }
}
