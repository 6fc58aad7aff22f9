import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One answer from the provider.
struct HTTPReply: Sendable {
    var status: Int
    var headers: [String: String]
    var body: Data

    /// A header by case-insensitive name.
    func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The body as a JSON object, or nil.
    var jsonObject: [String: ProfileValue]? {
        ProfileValue(parsing: body)?.objectValue
    }

    /// `Retry-After` in seconds (delta-seconds form only; an HTTP date is ignored).
    var retryAfter: TimeInterval? {
        header("Retry-After").flatMap { TimeInterval($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// The OAuth error this answer carries, or a generic one for its status.
    func failure(_ what: String) -> AuthorizationError {
        if let json = jsonObject, let code = json["error"]?.stringValue {
            return .oauth(code, description: json["error_description"]?.stringValue, retryAfter: retryAfter)
        }
        if status >= 500 || status == 429 {
            return AuthorizationError(.network, "\(what) answered HTTP \(status)", retryAfter: retryAfter)
        }
        return AuthorizationError(.invalidResponse, "\(what) answered HTTP \(status)", retryAfter: retryAfter)
    }
}

/// The SDK's HTTP calls: form posts to the token, device and revocation endpoints, and GETs
/// of discovery, JWKS and the profile.
///
/// The session has no delegate and no cookie store. Why no delegate: on Linux a delegate-having
/// session hangs on a `401` carrying `WWW-Authenticate: Basic`; the SDK's clients are public
/// and send `client_id` in the form body, so nothing here needs one.
struct HTTPClient: Sendable {
    /// The longest answer accepted; providers' documents are a few KiB.
    static let maximumBodySize = 1024 * 1024

    let session: URLSession
    let timeout: TimeInterval

    static let shared = HTTPClient(timeout: 30)

    private static let bounded = LockedState<[TimeInterval: HTTPClient]>([:])

    /// A client whose requests end after `seconds` without an answer, rounded up to a whole
    /// second (Linux's `URLSession` counts its request timeout in whole seconds). One session
    /// per distinct timeout, made once: apps use one or two.
    static func timingOut(after seconds: TimeInterval) -> HTTPClient {
        let whole = max(1, seconds.rounded(.up))
        return bounded.withLock { clients in
            if let client = clients[whole] { return client }
            let client = HTTPClient(timeout: whole)
            clients[whole] = client
            return client
        }
    }

    init(timeout: TimeInterval) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = timeout
        session = URLSession(configuration: configuration)
        self.timeout = timeout
    }

    /// POSTs `fields` form-encoded (RFC 6749 Appendix B), with extra `headers` when given.
    func postForm(
        _ url: URL, _ fields: [(String, String)], headers: [String: String] = [:]
    ) async throws(AuthorizationError) -> HTTPReply {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.httpBody = Data(FormEncoding.encode(fields).utf8)
        return try await send(request)
    }

    /// GETs `url`, with a bearer token when given.
    func get(_ url: URL, bearer: String? = nil) async throws(AuthorizationError) -> HTTPReply {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        return try await send(request)
    }

    /// Sends `request` as it is, the answer bounded in size.
    func send(_ request: URLRequest) async throws(AuthorizationError) -> HTTPReply {
        let what = request.url?.host ?? "the provider"
        do {
            try Task.checkCancellation()
            let (data, response) = try await PendingExchange.run(request, on: session)
            guard let http = response as? HTTPURLResponse else {
                throw AuthorizationError(.invalidResponse, "\(what) sent no HTTP answer")
            }
            guard data.count <= Self.maximumBodySize else {
                throw AuthorizationError(.invalidResponse, "\(what) sent an answer that is too large")
            }
            var headers: [String: String] = [:]
            for (name, value) in http.allHeaderFields {
                if let name = name as? String, let value = value as? String { headers[name] = value }
            }
            return HTTPReply(status: http.statusCode, headers: headers, body: data)
        } catch {
            if Task.isCancelled { throw AuthorizationError.taskCancelled }
            let failure = error as NSError
            if failure.domain == NSURLErrorDomain, failure.code == NSURLErrorTimedOut {
                let limit = String(format: "%g", timeout)
                throw AuthorizationError(.timedOut, "\(what) did not answer within \(limit) s", underlyingError: error)
            }
            throw AuthorizationError.wrap(error, as: .network, "cannot reach \(what)")
        }
    }
}

/// `application/x-www-form-urlencoded` and query encoding: everything but RFC 3986 unreserved
/// characters percent-encoded, so no value can add a parameter.
enum FormEncoding {
    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    static func encode(_ fields: [(String, String)]) -> String {
        fields.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }
}

/// One request on a `URLSession`, awaited so that cancelling the awaiting task ends the wait at
/// once and never touches the session's own locks from the cancelling thread.
///
/// Why not `URLSession.data(for:)`: on Linux (swift-corelibs-foundation, seen with Swift 6.3.1)
/// cancelling it can deadlock (its cancellation handler takes the session's work queue while the
/// Swift task's status lock is held; swiftlang/swift-corelibs-foundation#5412), and
/// `URLSessionTask.cancel()` racing a failing connection can trap ("a task that is not in the
/// registry"). Both were reproduced here with a hundred cancelled requests. So cancellation
/// resumes the awaiting task with `CancellationError` by itself; on Linux the abandoned request
/// runs on until it ends or reaches its own timeout and its answer is dropped, and on Apple
/// platforms it is cancelled as usual.
private final class PendingExchange: Sendable {
    private struct State {
        var continuation: CheckedContinuation<(Data, URLResponse), any Error>?
        var task: URLSessionTask?
        var cancelled = false
    }

    private let state = LockedState(State())

    static func run(_ request: URLRequest, on session: URLSession) async throws -> (Data, URLResponse) {
        let exchange = PendingExchange()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: request) { data, response, error in
                    if let data, let response {
                        exchange.finish(.success((data, response)))
                    } else {
                        exchange.finish(.failure(error ?? URLError(.badServerResponse)))
                    }
                }
                exchange.start(task, continuation)
            }
        } onCancel: {
            exchange.cancel()
        }
    }

    private func start(_ task: URLSessionTask, _ continuation: CheckedContinuation<(Data, URLResponse), any Error>) {
        let alreadyCancelled = state.withLock { current -> Bool in
            if current.cancelled { return true }
            current.continuation = continuation
            current.task = task
            return false
        }
        if alreadyCancelled {
            continuation.resume(throwing: CancellationError())
        } else {
            task.resume()
        }
    }

    private func finish(_ result: Result<(Data, URLResponse), any Error>) {
        let continuation = state.withLock { current in
            defer { current.continuation = nil }
            return current.continuation
        }
        continuation?.resume(with: result)
    }

    private func cancel() {
        let (continuation, task) = state.withLock { current in
            current.cancelled = true
            defer {
                current.continuation = nil
                current.task = nil
            }
            return (current.continuation, current.task)
        }
        continuation?.resume(throwing: CancellationError())
        #if !canImport(FoundationNetworking)
            task?.cancel()
        #else
            _ = task
        #endif
    }
}
