import Foundation

/// Signs in through the person's own browser with a loopback redirect (RFC 8252): the way for
/// desktop and command-line apps.
///
/// It listens on `127.0.0.1` with a port the OS assigns, opens the authorization URL with
/// ``opener`` (`$BROWSER`, `xdg-open` or `open` by default), and waits for the browser's
/// redirect, which gets a small "you can close this tab" page. Only a callback with the pending
/// `state` ends the wait; it times out after ``timeout`` and closes the listener at once when
/// the task is cancelled. The registered redirect URI is `http://127.0.0.1/<path>`; Portico
/// accepts any port for loopback URIs of public clients, as RFC 8252 §7.3 asks. A registered
/// loopback URI that names a port (`http://127.0.0.1:8091/callback`) is listened on exactly:
/// confidential clients, such as a host app with a backend, must use their URI byte for byte.
public struct SystemBrowserUserAgent: UserAgent {
    /// How long to wait for the browser (5 minutes by default).
    public var timeout: Duration
    /// How the URL reaches the browser.
    public var opener: BrowserOpener

    /// A user agent that waits `timeout` and opens URLs with `opener`.
    public init(timeout: Duration = .seconds(300), opener: BrowserOpener = .system) {
        self.timeout = timeout
        self.opener = opener
    }

    /// Available when the app registered a loopback redirect URI (or none) and a browser can
    /// be opened: `$BROWSER`, or a desktop session with `xdg-open` (always on macOS).
    public func isAvailable(for context: AuthorizationContext) -> Bool {
        if let redirectURI = context.redirectURI, !Self.isLoopback(redirectURI) { return false }
        return opener.isAvailable()
    }

    /// Listens, opens the browser, and returns the callback.
    public func authorize(_ context: AuthorizationContext) async throws -> AuthorizationOutcome {
        let listener = try LoopbackListener(port: Self.registeredPort(of: context.redirectURI))
        let path = Self.callbackPath(for: context.redirectURI)
        guard let redirectURI = URL(string: "http://127.0.0.1:\(listener.port)\(path)") else {
            listener.cancel()
            throw AuthorizationError(.invalidInput, "the redirect path \(path) is not usable")
        }
        // Pushed first (RFC 9126) when the provider offers PAR; a refused push shows nothing.
        let authorizationURL: URL
        do { authorizationURL = try await context.authorizationRequestURL(redirectURI: redirectURI) } catch {
            listener.cancel()
            throw error
        }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let state = context.pending.state
        let waiting = Task {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<URL, any Error>) in
                Thread.detachNewThread {
                    continuation.resume(with: listener.serve(path: path, state: state, deadline: deadline))
                }
            }
        }
        // The browser may run until it is closed, so it is opened beside the wait: the callback
        // ends the wait, and so does a browser that fails to start (at once, not at the time-out).
        let openFailure = LockedState<(any Error)?>(nil)
        let opener = opener
        let opening = Task {
            do { try await opener.open(authorizationURL) } catch {
                openFailure.withLock { $0 = error }
                listener.cancel()
            }
        }
        return try await withTaskCancellationHandler {
            do {
                return .callback(try await waiting.value, redirectURI: redirectURI)
            } catch {
                if let failure = openFailure.withLock({ $0 }) { throw failure }
                throw error
            }
        } onCancel: {
            opening.cancel()
            listener.cancel()
        }
    }

    /// Opens the sign-out page in the same browser the sign-in used.
    public func endSession(at url: URL, redirectURI: URL?) async throws {
        try await opener.open(url)
    }

    /// The path of a registered loopback redirect URI, or `/callback`.
    static func callbackPath(for redirectURI: URL?) -> String {
        guard let redirectURI, isLoopback(redirectURI), !redirectURI.path.isEmpty else { return "/callback" }
        return redirectURI.path
    }

    /// The port a registered loopback redirect URI names, or 0 (any port) when it names none.
    static func registeredPort(of redirectURI: URL?) -> UInt16 {
        guard let redirectURI, isLoopback(redirectURI), let port = redirectURI.port, let fixed = UInt16(exactly: port)
        else { return 0 }
        return fixed
    }

    /// Whether `uri` is an `http` URI on a loopback host.
    static func isLoopback(_ uri: URL) -> Bool {
        uri.scheme?.lowercased() == "http" && ["127.0.0.1", "localhost", "::1", "[::1]"].contains(uri.host ?? "")
    }
}
