import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A small blocking HTTP client for the provider's own outbound requests (back-channel logout
/// tokens to clients' backends): one form POST, a short timeout, no cookies, no redirects.
///
/// Blocking on purpose: it runs on the deliverer's own thread, never on an HTTP thread or the
/// Swift concurrency pool, so waiting costs nothing else. Redirects are not followed (a
/// session-level delegate refuses them; Linux's URLSession ignores per-task delegates) because
/// the logout token is meant for the registered URI only, and a 3xx is not a delivery.
final class FormPoster: Sendable {
    /// How an attempt ended.
    enum Outcome: Sendable, Equatable {
        /// The server answered with this status.
        case status(Int)
        /// No answer: the connection failed or timed out; the reason for operators.
        case failed(String)
    }

    private let session: URLSession

    /// A poster whose requests give up after `timeout` seconds.
    init(timeout: TimeInterval) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration, delegate: RefusingRedirects(), delegateQueue: nil)
    }

    deinit {
        session.invalidateAndCancel()
    }

    /// POSTs `fields` as `application/x-www-form-urlencoded` to `url` and waits for the answer.
    func post(_ fields: [(String, String)], to url: URL) -> Outcome {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.setValue("no-store", forHTTPHeaderField: "Cache-Control")
        // RFC 3986 unreserved characters as they are, everything else percent-encoded: the
        // same encoding the authorization responses use.
        request.httpBody = Data(
            fields.map { "\(AuthorizationResponse.percentEncode($0.0))=\(AuthorizationResponse.percentEncode($0.1))" }
                .joined(separator: "&").utf8)
        let result = Result()
        let done = DispatchSemaphore(value: 0)
        let task = session.dataTask(with: request) { _, response, error in
            if let response = response as? HTTPURLResponse {
                result.set(.status(response.statusCode))
            } else {
                result.set(.failed(error.map { "\($0.localizedDescription)" } ?? "no response"))
            }
            done.signal()
        }
        task.resume()
        done.wait()
        return result.get() ?? .failed("no response")
    }

    /// The outcome handed from URLSession's queue to the waiting thread.
    private final class Result: @unchecked Sendable {
        private let lock = NSLock()
        private var outcome: Outcome?

        func set(_ value: Outcome) { lock.withLock { outcome = value } }
        func get() -> Outcome? { lock.withLock { outcome } }
    }

    /// Answers every redirect with "do not follow", so the 3xx itself is the response.
    private final class RefusingRedirects: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }
    }
}
