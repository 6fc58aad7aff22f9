import Foundation

/// How the provider's pages reach the person: a browser with a loopback redirect, a custom
/// URL scheme, an in-app web session, or a code to enter on another device.
///
/// The manager calls ``authorize(_:)`` for every interactive authorization. An agent shows
/// ``AuthorizationContext/authorizationRequestURL(redirectURI:)`` (pushed first when the
/// provider offers PAR) somehow and returns the callback URL it received; the manager checks
/// `state` and `iss` itself. Agents end with ``AuthorizationError/Code/userCancelled`` when the
/// person gives up, and with ``AuthorizationError/Code/cancelled`` when the task is cancelled.
public protocol UserAgent: Sendable {
    /// Runs the provider's pages for `context` and returns how they ended.
    func authorize(_ context: AuthorizationContext) async throws -> AuthorizationOutcome

    /// Whether this agent can work here for `context` (a browser to open, a redirect URI of
    /// the right kind, a device endpoint); ``AutomaticUserAgent`` skips agents that cannot.
    func isAvailable(for context: AuthorizationContext) -> Bool

    /// Shows the provider's sign-out page `url` (RP-initiated logout) where the sign-in ran,
    /// so the provider's session cookie there ends; `redirectURI` is the app's. Agents without
    /// a browser (device login) do nothing.
    func endSession(at url: URL, redirectURI: URL?) async throws
}

extension UserAgent {
    /// Nothing to end by default: the agent shows no browser of its own.
    public func endSession(at url: URL, redirectURI: URL?) async throws {}

    /// Available everywhere unless an agent says otherwise.
    public func isAvailable(for context: AuthorizationContext) -> Bool { true }
}
