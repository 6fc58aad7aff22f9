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

        /// An agent; ephemeral sessions are off by default, as LWA's are.
        public init(prefersEphemeralWebBrowserSession: Bool = false) {
            self.prefersEphemeralWebBrowserSession = prefersEphemeralWebBrowserSession
        }

        /// Runs the session and returns its callback; closing the sheet is the user's cancel.
        @MainActor
        public func authorize(_ context: AuthorizationContext) async throws -> AuthorizationOutcome {
            guard let redirectURI = context.redirectURI, let scheme = redirectURI.scheme,
                scheme != "http", scheme != "https"
            else { throw AuthorizationError(.invalidInput, "an in-app web session needs a custom-scheme redirect URI") }
            let url = context.authorizationURL(redirectURI: redirectURI)
            let anchor = PresentationAnchorProvider()
            let holder = SessionHolder()
            let callback: URL = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
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
                    session.prefersEphemeralWebBrowserSession = prefersEphemeralWebBrowserSession
                    session.presentationContextProvider = anchor
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
            return .callback(callback, redirectURI: redirectURI)
        }

        /// Available on Apple platforms whenever the redirect URI has a custom scheme.
        public func isAvailable(for provider: Provider) -> Bool { true }
    }

    @MainActor
    private final class SessionHolder {
        var session: ASWebAuthenticationSession?
    }

    @MainActor
    private final class PresentationAnchorProvider: NSObject, ASWebAuthenticationPresentationContextProviding {
        func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
            ASPresentationAnchor()
        }
    }
#endif
