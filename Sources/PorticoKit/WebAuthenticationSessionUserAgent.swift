#if canImport(AuthenticationServices) && !os(watchOS)
    import AuthenticationServices
    import Foundation

    #if canImport(UIKit)
        import UIKit
    #endif

    /// Signs in with `ASWebAuthenticationSession` on Apple platforms: the system's in-app
    /// browser sheet, which shares Safari's cookies unless ``prefersEphemeralWebBrowserSession``.
    ///
    /// The redirect URI is a custom scheme the app registered with the provider, or, from
    /// iOS 17.4 / macOS 14.4 on, an `https` URI on a domain associated with the app (universal
    /// links; `ASWebAuthenticationSession.Callback.https`). The session always ends: by its
    /// callback, the person's cancel, the app's cancel, ``timeout``, or (iOS) a return to the
    /// foreground that finds the sheet gone (see `WebSessionRun`, which the Linux tests drive).
    /// Type-checked on Linux against apple/stubs; not run there.
    public struct WebAuthenticationSessionUserAgent: UserAgent {
        /// Whether the sheet starts without Safari's cookies (no "Continue" prompt, no SSO).
        public var prefersEphemeralWebBrowserSession: Bool
        /// The window the sheet is presented over: it must be a window of a foreground scene
        /// (Apple's requirement); nil uses the key window of the first foreground-active scene.
        public var presentationAnchor: (@MainActor @Sendable () -> ASPresentationAnchor)?
        /// The longest the sheet may stay without an answer before the sign-in ends as
        /// ``AuthorizationError/Code/timedOut``.
        public var timeout: Duration

        /// An agent; ephemeral sessions are off by default, as LWA's are.
        public init(
            prefersEphemeralWebBrowserSession: Bool = false,
            presentationAnchor: (@MainActor @Sendable () -> ASPresentationAnchor)? = nil,
            timeout: Duration = .seconds(600)
        ) {
            self.prefersEphemeralWebBrowserSession = prefersEphemeralWebBrowserSession
            self.presentationAnchor = presentationAnchor
            self.timeout = timeout
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
            let callback = try await run(
                url: try await context.authorizationRequestURL(redirectURI: redirectURI), redirectURI: redirectURI)
            return .callback(callback, redirectURI: redirectURI)
        }

        /// Shows the sign-out page in a web session, which shares the sign-in's cookies; the
        /// session ends when the person closes it (or the provider redirects to `redirectURI`).
        public func endSession(at url: URL, redirectURI: URL?) async throws {
            guard let redirectURI else { return }
            do {
                _ = try await run(url: url, redirectURI: redirectURI)
            } catch let error as AuthorizationError where error.code == .userCancelled {
                // Closing the "signed out" page is how this ends.
            }
        }

        @MainActor
        private static func makeSession(
            url: URL, redirectURI: URL, handler: @escaping @Sendable (URL?, (any Error)?) -> Void
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

        private func run(url: URL, redirectURI: URL) async throws -> URL {
            let holder = await SessionHolder(anchor: presentationAnchor)
            let run = WebSessionRun(
                timeout: timeout, isSheetShowing: { await holder.isShowing },
                onEnd: { Task { @MainActor in holder.end() } })
            let foreground = ActivationObserver(name: ActivationObserver.willEnterForeground)
            foreground.start { run.returnedToForeground() }
            // AuthenticationServices calls the completion on a queue of its choosing (a
            // background one on macOS, sometimes on iOS): the closure is `@Sendable` and touches
            // only the thread-safe run, never main-actor state, so it cannot trap on isolation.
            let completion: @Sendable (URL?, (any Error)?) -> Void = { callback, error in
                let canceledLogin = (error as? ASWebAuthenticationSessionError)?.code == .canceledLogin
                run.completed(callback: callback, error: error, isCanceledLogin: canceledLogin)
            }
            let ephemeral = prefersEphemeralWebBrowserSession
            let started = await MainActor.run {
                holder.start(
                    Self.makeSession(url: url, redirectURI: redirectURI, handler: completion), ephemeral: ephemeral)
            }
            if !started { run.failedToStart() }
            return try await withTaskCancellationHandler {
                try await run.wait()
            } onCancel: {
                run.cancelByApp()
            }
        }
    }

    /// Keeps the session alive while it runs and tells it where to present.
    @MainActor
    private final class SessionHolder: NSObject, ASWebAuthenticationPresentationContextProviding {
        private var session: ASWebAuthenticationSession?
        private var anchorWindow: ASPresentationAnchor?
        private let anchor: (@MainActor @Sendable () -> ASPresentationAnchor)?

        init(anchor: (@MainActor @Sendable () -> ASPresentationAnchor)?) {
            self.anchor = anchor
        }

        /// Starts `session`; false when the system refused.
        func start(_ session: ASWebAuthenticationSession, ephemeral: Bool) -> Bool {
            session.prefersEphemeralWebBrowserSession = ephemeral
            session.presentationContextProvider = self
            self.session = session
            if session.start() { return true }
            self.session = nil
            return false
        }

        /// Dismisses the sheet if it is still up, and lets the session go.
        func end() {
            session?.cancel()
            session = nil
        }

        /// Whether the sheet is on screen: on iOS something is presented over the anchor's
        /// root view controller; elsewhere there is no such check and the deadline decides.
        var isShowing: Bool {
            #if canImport(UIKit)
                return anchorWindow?.rootViewController?.presentedViewController != nil
            #else
                return true
            #endif
        }

        func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
            let window = anchor?() ?? Self.foregroundWindow()
            anchorWindow = window
            return window
        }

        /// The key window of the first foreground-active scene (Apple requires a window of a
        /// foreground scene), else a window on that scene.
        private static func foregroundWindow() -> ASPresentationAnchor {
            #if canImport(UIKit)
                let scenes = UIApplication.sharedIfAvailable?.connectedScenes.compactMap { $0 as? UIWindowScene } ?? []
                let active = scenes.first { $0.activationState == .foregroundActive } ?? scenes.first
                if let active {
                    return active.keyWindow ?? active.windows.first ?? UIWindow(windowScene: active)
                }
            #endif
            return ASPresentationAnchor()
        }
    }
#endif

#if canImport(AuthenticationServices) && canImport(UIKit) && !os(watchOS)
    import UIKit

    extension UIApplication {
        /// The app's `UIApplication`, or nil in an app extension. `UIApplication.shared` is
        /// unavailable in extensions at compile time, and PorticoKit links into extensions too,
        /// so it is found through the runtime (as Kingfisher does), never named.
        @MainActor static var sharedIfAvailable: UIApplication? {
            let selector = NSSelectorFromString("sharedApplication")
            guard responds(to: selector) else { return nil }
            return perform(selector)?.takeUnretainedValue() as? UIApplication
        }
    }
#endif
