import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The URLSessions the harness uses: no cookie jar of their own (a shared one would mix the
/// browsers of parallel tests) and no cache.
enum TestSessions {
    /// For one-off requests. Without a delegate: on Linux a delegate session waits forever on
    /// a 401 that carries a challenge, which the protocol endpoints must send.
    static let plain = URLSession(configuration: configuration(timeout: 30))

    /// A new session for a ``TestBrowser``, which never follows redirects (tests read
    /// `Location` themselves) and keeps cookies by hand.
    static func browser(timeout: TimeInterval) -> URLSession {
        URLSession(configuration: configuration(timeout: timeout), delegate: RedirectRefusal(), delegateQueue: nil)
    }

    private static func configuration(timeout: TimeInterval) -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        return configuration
    }
}

/// Stops URLSession from following redirects: on Linux only a session-level delegate can.
final class RedirectRefusal: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
