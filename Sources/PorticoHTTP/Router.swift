import Synchronization

/// Maps a method and a path pattern to a handler.
///
/// Patterns are literal segments and `:name` parameters (`/clients/:id`). Every `GET` route also
/// answers `HEAD`; a path that exists for other methods answers 405 with `Allow`; anything
/// else 404 (or the fallback). Routes are registered before `HTTPServer.start()`, which takes an
/// immutable snapshot so that lookups on the hot path need no lock.
///
/// Handlers come in two kinds. Plain closures run on the server's epoll threads and must only
/// compute (no sleeping, no database, no password hashing). `…Async` closures may wait: the
/// connection is suspended while a task runs them, so they never hold up other requests.
public final class Router: Sendable {
    private let table = Mutex(RouteTable())
    private let isFrozen = Atomic<Bool>(false)

    /// Creates a router without routes.
    public init() {}

    /// Registers a handler that runs on the epoll thread, for CPU-only work.
    public func add(
        _ method: HTTPMethod, _ path: String, _ handler: @escaping @Sendable (Request) throws -> Response
    ) {
        register(method, path, .immediate(handler))
    }

    /// Registers a handler that may wait (database, Argon2, outbound HTTP): the connection is
    /// suspended while a task runs it.
    public func addAsync(
        _ method: HTTPMethod, _ path: String, _ handler: @escaping @Sendable (Request) async throws -> Response
    ) {
        register(method, path, .offloaded(handler))
    }

    /// Registers a handler that may wait, with a first step for the requests that need not:
    /// `immediate` runs on the epoll thread and answers (a response) or hands over (nil) to
    /// `handler`, which runs like one registered with ``addAsync(_:_:_:)``. `immediate` must
    /// never wait itself (no database across the network, no password hash).
    public func addAsync(
        _ method: HTTPMethod, _ path: String, immediate: @escaping @Sendable (Request) -> Response?,
        _ handler: @escaping @Sendable (Request) async throws -> Response
    ) {
        register(method, path, .offloadedUnless(first: immediate, run: handler))
    }

    /// Registers a `GET` (and so `HEAD`) route whose response does not depend on the request
    /// but changes now and then (discovery, JWKS): `current` returns the one its owner keeps,
    /// and is called without building a `Request` (no header or query parsing), so such a
    /// route costs almost what a constant one does.
    public func get(_ path: String, current: @escaping @Sendable () -> PreparedResponse) {
        register(.get, path, .current(current))
    }

    /// Registers a response that never changes (a health check, a static document): it is
    /// converted for libmicrohttpd once and then sent without running any code per request.
    public func add(_ method: HTTPMethod, _ path: String, constant response: Response) {
        register(method, path, .constant(PreparedResponse(response)))
    }

    /// Registers a constant `GET` (and so `HEAD`) response; see `add(_:_:constant:)`.
    public func get(_ path: String, constant response: Response) {
        add(.get, path, constant: response)
    }

    /// Registers a `GET` (and so `HEAD`) handler that runs on the epoll thread.
    public func get(_ path: String, _ handler: @escaping @Sendable (Request) throws -> Response) {
        add(.get, path, handler)
    }

    /// Registers a `POST` handler that runs on the epoll thread.
    public func post(_ path: String, _ handler: @escaping @Sendable (Request) throws -> Response) {
        add(.post, path, handler)
    }

    /// Registers a `PUT` handler that runs on the epoll thread.
    public func put(_ path: String, _ handler: @escaping @Sendable (Request) throws -> Response) {
        add(.put, path, handler)
    }

    /// Registers a `DELETE` handler that runs on the epoll thread.
    public func delete(_ path: String, _ handler: @escaping @Sendable (Request) throws -> Response) {
        add(.delete, path, handler)
    }

    /// Registers a `PATCH` handler that runs on the epoll thread.
    public func patch(_ path: String, _ handler: @escaping @Sendable (Request) throws -> Response) {
        add(.patch, path, handler)
    }

    /// Registers a `GET` (and so `HEAD`) handler that may wait; see `addAsync(_:_:_:)`.
    public func getAsync(_ path: String, _ handler: @escaping @Sendable (Request) async throws -> Response) {
        addAsync(.get, path, handler)
    }

    /// Registers a `POST` handler that may wait; see `addAsync(_:_:_:)`.
    public func postAsync(_ path: String, _ handler: @escaping @Sendable (Request) async throws -> Response) {
        addAsync(.post, path, handler)
    }

    /// Registers a `PUT` handler that may wait; see `addAsync(_:_:_:)`.
    public func putAsync(_ path: String, _ handler: @escaping @Sendable (Request) async throws -> Response) {
        addAsync(.put, path, handler)
    }

    /// Registers a `DELETE` handler that may wait; see `addAsync(_:_:_:)`.
    public func deleteAsync(_ path: String, _ handler: @escaping @Sendable (Request) async throws -> Response) {
        addAsync(.delete, path, handler)
    }

    /// Registers a `PATCH` handler that may wait; see `addAsync(_:_:_:)`.
    public func patchAsync(_ path: String, _ handler: @escaping @Sendable (Request) async throws -> Response) {
        addAsync(.patch, path, handler)
    }

    /// Sets the handler for requests no route matches (instead of the plain 404), for example
    /// to serve a styled error page; a path known for other methods still answers 405.
    public func fallback(_ handler: @escaping @Sendable (Request) throws -> Response) {
        guard acceptsChanges() else { return }
        table.withLock { $0.fallback = .immediate(handler) }
    }

    /// Sets the answer for a request to an async route that arrives while the worker queue is
    /// full (`ServerConfiguration.maxPendingAsyncRequests`), instead of the plain-text 503, so
    /// that a person in a browser sees a page in their language rather than a line of English.
    /// It runs on the epoll thread and must be quick. Whatever it returns is sent as 503, with
    /// `Retry-After: 1` unless it sets its own: the client must still be told to come back; nil
    /// leaves that request the server's plain-text 503 (a client that reads no page).
    public func overloaded(_ handler: @escaping @Sendable (Request) -> Response?) {
        guard acceptsChanges() else { return }
        table.withLock { $0.overloaded = handler }
    }

    /// Sets the request body limit for `path` (an exact path, every method) to `bytes`, instead
    /// of the server's `maxBodySize` and `maxFormBodySize`: a larger body gets 413 before it is
    /// read, so an endpoint that takes a short form cannot be made to buffer a megabyte.
    public func limitBodySize(_ bytes: Int, for path: String) {
        guard acceptsChanges() else { return }
        table.withLock { $0.bodyLimits[path] = max(0, bytes) }
    }

    /// The snapshot the server routes with; later registrations are refused.
    func freeze() -> RouteTable {
        isFrozen.store(true, ordering: .releasing)
        return table.withLock { $0 }
    }

    private func register(_ method: HTTPMethod, _ path: String, _ handler: RouteHandler) {
        guard acceptsChanges() else { return }
        table.withLock { $0.add(method, path, handler) }
    }

    private func acceptsChanges() -> Bool {
        guard !isFrozen.load(ordering: .acquiring) else {
            RequestLogger.writeLine(
                Array(#"{"level":"error","message":"route registered after the server started; ignored"}"#.utf8))
            return false
        }
        return true
    }
}
