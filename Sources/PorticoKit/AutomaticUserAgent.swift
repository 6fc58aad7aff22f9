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

    /// The automatic choice, with an optional companion agent.
    public init(
        companion: (any UserAgent)? = CompanionUserAgent(),
        onDevicePrompt: @escaping @Sendable (DeviceCodePrompt) async -> Void = { prompt in
            let text = "To sign in, open \(prompt.verificationURL) and enter the code \(prompt.userCode)\n"
            FileHandle.standardOutput.write(Data(text.utf8))
        },
        browserOpener: BrowserOpener = .system
    ) {
        self.companion = companion
        self.onDevicePrompt = onDevicePrompt
        self.browserOpener = browserOpener
    }

    /// The agents in order of preference, whether available or not.
    func candidates() -> [any UserAgent] {
        var agents: [any UserAgent] = []
        if let companion { agents.append(companion) }
        #if canImport(AuthenticationServices) && !os(watchOS)
            agents.append(WebAuthenticationSessionUserAgent())
        #endif
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

    /// Ends the provider's session in the browser the sign-in most likely used: the in-app
    /// web session on Apple platforms, else the system browser when there is one.
    public func endSession(at url: URL, redirectURI: URL?) async throws {
        #if canImport(AuthenticationServices) && !os(watchOS)
            try await WebAuthenticationSessionUserAgent().endSession(at: url, redirectURI: redirectURI)
        #else
            if browserOpener.isAvailable() { try await browserOpener.open(url) }
        #endif
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
                return try await agent.authorize(context)
            } catch let error as AuthorizationError where error.isBrowserLaunchFailure || error.isCompanionUnavailable {
                continue
            }
        }
        return try await agents[agents.count - 1].authorize(context)
    }
}
