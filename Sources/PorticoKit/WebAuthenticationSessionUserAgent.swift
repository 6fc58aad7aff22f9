#if canImport(AuthenticationServices) && !os(watchOS)
    import AuthenticationServices
    import Foundation

    /// Signs in with `ASWebAuthenticationSession` on Apple platforms: the system's in-app
    /// browser sheet, which shares Safari's cookies unless ``prefersEphemeralWebBrowserSession``.
    ///
    /// The redirect URI must use a custom scheme the app registered with the provider.
    public struct WebAuthenticationSessionUserAgent: UserAgent {
        /// Whether the sheet starts without Safari's cookies (no "Continue" prompt, no SSO).
        public var prefersEphemeralWebBrowserSession: Bool
        /// The window the sheet is presented over; nil uses a new anchor.
        public var presentationAnchor: (@MainActor @Sendable () -> ASPresentationAnchor)?

        /// An agent; ephemeral sessions are off by default, as LWA's are.
        public init(
            prefersEphemeralWebBrowserSession: Bool = false,
            presentationAnchor: (@MainActor @Sendable () -> ASPresentationAnchor)? = nil
        ) {
            self.prefersEphemeralWebBrowserSession = prefersEphemeralWebBrowserSession
            self.presentationAnchor = presentationAnchor
        }

        /// Available when the redirect URI has a custom scheme.
        public func isAvailable(for context: AuthorizationContext) -> Bool {
            guard let scheme = context.redirectURI?.scheme?.lowercased() else { return false }
            return scheme != "http" && scheme != "https"
        }

        /// Runs the session and returns its callback; closing the sheet is the user's cancel.
        public func authorize(_ context: AuthorizationContext) async throws -> AuthorizationOutcome {
            guard isAvailable(for: context), let redirectURI = context.redirectURI, let scheme = redirectURI.scheme
            else {
                throw AuthorizationError(.invalidInput, "an in-app web session needs a custom-scheme redirect URI")
            }
            let callback = try await Self.run(
                url: context.authorizationURL(redirectURI: redirectURI), scheme: scheme,
                ephemeral: prefersEphemeralWebBrowserSession, anchor: presentationAnchor)
            return .callback(callback, redirectURI: redirectURI)
        }

        @MainActor
        private static func run(
            url: URL, scheme: String, ephemeral: Bool, anchor: (@MainActor @Sendable () -> ASPresentationAnchor)?
        ) async throws -> URL {
            let holder = SessionHolder(anchor: anchor)
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<URL, any Error>) in
                    let session = ASWebAuthenticationSession(url: url, callbackURLScheme: scheme) { callback, error in
                        if let callback {
                            continuation.resume(returning: callback)
                        } else if let error = error as? ASWebAuthenticationSessionError, error.code == .canceledLogin {
                            continuation.resume(
                                throwing: AuthorizationError(.userCancelled, "the person closed the sign-in"))
                        } else {
                            continuation.resume(
                                throwing: AuthorizationError(
                                    .invalidResponse, "the web session failed", underlyingError: error))
                        }
                    }
                    session.prefersEphemeralWebBrowserSession = ephemeral
                    session.presentationContextProvider = holder
                    holder.session = session
                    if !session.start() {
                        holder.session = nil
                        continuation.resume(
                            throwing: AuthorizationError(.invalidInput, "the web session could not start"))
                    }
                }
            } onCancel: {
                Task { @MainActor in holder.session?.cancel() }
            }
        }
    }

    /// Keeps the session alive while it runs and tells it where to present.
    @MainActor
    private final class SessionHolder: NSObject, @preconcurrency ASWebAuthenticationPresentationContextProviding {
        var session: ASWebAuthenticationSession?
        let anchor: (@MainActor @Sendable () -> ASPresentationAnchor)?

        init(anchor: (@MainActor @Sendable () -> ASPresentationAnchor)?) {
            self.anchor = anchor
        }

        func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
            anchor?() ?? ASPresentationAnchor()
        }
    }
#endif
