#if canImport(AuthenticationServices) && !os(watchOS)
    import AuthenticationServices
    import Foundation

    /// Signs in with `ASWebAuthenticationSession` on Apple platforms: the system's in-app
    /// browser sheet, which shares Safari's cookies unless ``prefersEphemeralWebBrowserSession``.
    ///
    /// The redirect URI is a custom scheme the app registered with the provider, or, from
    /// iOS 17.4 / macOS 14.4 on, an `https` URI on a domain associated with the app (universal
    /// links; `ASWebAuthenticationSession.Callback.https`). Not compiled or tested on Linux.
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

        /// Available when the redirect URI has a custom scheme, or is `https` where the system
        /// supports https callbacks.
        public func isAvailable(for context: AuthorizationContext) -> Bool {
            guard let scheme = context.redirectURI?.scheme?.lowercased() else { return false }
            if scheme == "https" { return Self.supportsHTTPSCallbacks }
            return scheme != "http"
        }

        static var supportsHTTPSCallbacks: Bool {
            if #available(iOS 17.4, macOS 14.4, tvOS 17.4, visionOS 1.1, *) { return true }
            return false
        }

        /// Runs the session and returns its callback. Closing the sheet is the person's cancel;
        /// cancelling the task is the app's, reported as ``AuthorizationError/Code/cancelled``.
        public func authorize(_ context: AuthorizationContext) async throws -> AuthorizationOutcome {
            guard isAvailable(for: context), let redirectURI = context.redirectURI else {
                throw AuthorizationError(
                    .invalidInput, "an in-app web session needs a custom-scheme (or https) redirect URI")
            }
            let callback = try await Self.run(
                url: context.authorizationURL(redirectURI: redirectURI), redirectURI: redirectURI,
                ephemeral: prefersEphemeralWebBrowserSession, anchor: presentationAnchor)
            return .callback(callback, redirectURI: redirectURI)
        }

        /// Shows the sign-out page in a web session, which shares the sign-in's cookies; the
        /// session ends when the person closes it (or the provider redirects to `redirectURI`).
        public func endSession(at url: URL, redirectURI: URL?) async throws {
            guard let redirectURI else { return }
            do {
                _ = try await Self.run(
                    url: url, redirectURI: redirectURI, ephemeral: prefersEphemeralWebBrowserSession,
                    anchor: presentationAnchor)
            } catch let error as AuthorizationError where error.code == .userCancelled {
                // Closing the "signed out" page is how this ends.
            }
        }

        @MainActor
        private static func makeSession(
            url: URL, redirectURI: URL, handler: @escaping ASWebAuthenticationSession.CompletionHandler
        ) -> ASWebAuthenticationSession {
            if #available(iOS 17.4, macOS 14.4, tvOS 17.4, visionOS 1.1, *) {
                let callback: ASWebAuthenticationSession.Callback
                if redirectURI.scheme?.lowercased() == "https", let host = redirectURI.host {
                    callback = .https(host: host, path: redirectURI.path)
                } else {
                    callback = .customScheme(redirectURI.scheme ?? "")
                }
                return ASWebAuthenticationSession(url: url, callback: callback, completionHandler: handler)
            }
            return ASWebAuthenticationSession(
                url: url, callbackURLScheme: redirectURI.scheme, completionHandler: handler)
        }

        @MainActor
        private static func run(
            url: URL, redirectURI: URL, ephemeral: Bool, anchor: (@MainActor @Sendable () -> ASPresentationAnchor)?
        ) async throws -> URL {
            let holder = SessionHolder(anchor: anchor)
            // Set before the session is cancelled on the app's behalf: `.canceledLogin` then
            // means the app gave up, not the person (AppAuth-iOS#628).
            let cancelledByApp = AppCancellation()
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<URL, any Error>) in
                    let session = makeSession(url: url, redirectURI: redirectURI) { callback, error in
                        if let callback {
                            continuation.resume(returning: callback)
                        } else if cancelledByApp.happened {
                            continuation.resume(throwing: AuthorizationError.taskCancelled)
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
                cancelledByApp.record()
                Task { @MainActor in holder.session?.cancel() }
            }
        }
    }

    /// Whether the app cancelled the session (so a `.canceledLogin` is not the person's).
    private final class AppCancellation: Sendable {
        private let flag = LockedState<Bool>(false)
        var happened: Bool { flag.value }
        func record() { flag.set() }
    }

    /// Keeps the session alive while it runs and tells it where to present.
    @MainActor
    private final class SessionHolder: NSObject, ASWebAuthenticationPresentationContextProviding {
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
