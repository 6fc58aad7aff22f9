import Foundation

/// Picks a user agent in the DESIGN's order: the platform's companion app (single sign-on),
/// an in-app web session on Apple platforms, the system browser with a loopback redirect, and
/// device login when nothing can show a browser.
///
/// ``companion`` is a ``CompanionUserAgent`` by default: tried first whenever an agent for the
/// issuer answers; pass nil to skip it (as `portico-demo login --no-companion` does).
public struct AutomaticUserAgent: UserAgent {
    /// The companion's agent, tried first when available; nil skips it.
    public var companion: (any UserAgent)?
    /// Where device login shows its code (standard output for command-line apps by default).
    public var onDevicePrompt: @Sendable (DeviceCodePrompt) async -> Void
    /// How the loopback sign-in opens the browser (``BrowserOpener/system`` by default).
    public var browserOpener: BrowserOpener
    /// The in-app web session, tried after the companion: on Apple platforms a
    /// `WebAuthenticationSessionUserAgent`, which apps configure (a presentation anchor in a
    /// foreground scene, ephemeral mode) by passing their own; nil elsewhere, or to skip it.
    public var webSession: (any UserAgent)?
    /// The agent that last signed in through this value (or a copy of it): sign-out goes
    /// through it, so a loopback sign-in never ends with a web-session alert.
    private let lastSignIn = LockedState<(any UserAgent)?>(nil)

    /// The platform's in-app web session agent, if it has one.
    public static var platformWebSession: (any UserAgent)? {
        #if canImport(AuthenticationServices) && !os(watchOS)
            WebAuthenticationSessionUserAgent()
        #else
            nil
        #endif
    }

    /// The automatic choice, with an optional companion agent and in-app web session.
    public init(
        companion: (any UserAgent)? = CompanionUserAgent(),
        onDevicePrompt: @escaping @Sendable (DeviceCodePrompt) async -> Void = { prompt in
            let text = "To sign in, open \(prompt.verificationURL) and enter the code \(prompt.userCode)\n"
            FileHandle.standardOutput.write(Data(text.utf8))
        },
        browserOpener: BrowserOpener = .system,
        webSession: (any UserAgent)? = AutomaticUserAgent.platformWebSession
    ) {
        self.companion = companion
        self.onDevicePrompt = onDevicePrompt
        self.browserOpener = browserOpener
        self.webSession = webSession
    }

    /// The agents in order of preference, whether available or not.
    func candidates() -> [any UserAgent] {
        var agents: [any UserAgent] = []
        if let companion { agents.append(companion) }
        if let webSession { agents.append(webSession) }
        agents.append(SystemBrowserUserAgent(opener: browserOpener))
        agents.append(DeviceCodeUserAgent(onPrompt: onDevicePrompt))
        return agents
    }

    /// The first agent available for `context`.
    func choose(for context: AuthorizationContext) -> (any UserAgent)? {
        candidates().first { $0.isAvailable(for: context) }
    }

    /// Available when any candidate is.
    public func isAvailable(for context: AuthorizationContext) -> Bool {
        choose(for: context) != nil
    }

    /// Ends the provider's session through the agent that signed in (remembered in this
    /// process); after a restart, through the in-app web session when it can return to
    /// `redirectURI` (a custom scheme or https), else the system browser when there is one.
    public func endSession(at url: URL, redirectURI: URL?) async throws {
        if let agent = lastSignIn.withLock({ $0 }) {
            return try await agent.endSession(at: url, redirectURI: redirectURI)
        }
        let scheme = redirectURI?.scheme?.lowercased()
        if let webSession, let scheme, scheme != "http" {
            try await webSession.endSession(at: url, redirectURI: redirectURI)
        } else if browserOpener.isAvailable() {
            try await browserOpener.open(url)
        }
    }

    /// Runs the first available agent; when its browser cannot be started, the next one.
    public func authorize(_ context: AuthorizationContext) async throws -> AuthorizationOutcome {
        let agents = candidates().filter { $0.isAvailable(for: context) }
        guard !agents.isEmpty else {
            throw AuthorizationError(
                .invalidInput, "no way to show the sign-in here: no browser and no device login at the provider")
        }
        for agent in agents.dropLast() {
            do {
                let outcome = try await agent.authorize(context)
                lastSignIn.withLock { $0 = agent }
                return outcome
            } catch let error as AuthorizationError where error.isBrowserLaunchFailure || error.isCompanionUnavailable {
                continue
            }
        }
        let last = agents[agents.count - 1]
        let outcome = try await last.authorize(context)
        lastSignIn.withLock { $0 = last }
        return outcome
    }
}
