import PorticoHTTP
import PorticoStore

/// Where the handlers that touch the store run: the one place that decides between an epoll
/// thread and the worker pool (DESIGN, "Concurrency and storage model").
///
/// An embedded store (SQLite) answers in microseconds, so such a handler runs on the epoll
/// thread that read the request and skips the hop to another thread. A store across the network
/// (``Store/isRemote``, PostgreSQL) may wait a round trip or for a free connection, so every
/// such handler runs on the worker pool instead and never stalls an epoll thread. Handlers that
/// wait whatever the store (Argon2id, the pages) register as async themselves; CPU-only routes
/// (discovery's prepared document, JWKS) stay on the epoll threads.
struct RouteExecution: Sendable {
    /// Where a handler runs.
    enum Placement: Sendable {
        /// On the epoll thread that read the request.
        case epollThread
        /// On the server's worker pool, the connection suspended meanwhile.
        case workerPool
    }

    /// Where the store's handlers run.
    let placement: Placement

    /// The placement `store` calls for.
    init(for store: any Store) {
        placement = store.isRemote ? .workerPool : .epollThread
    }

    /// A fixed placement.
    init(placement: Placement) {
        self.placement = placement
    }

    /// Registers `handler` for `method` and `path` where the store's handlers run.
    func add(
        _ method: HTTPMethod, _ path: String, on router: Router,
        _ handler: @escaping @Sendable (Request) -> Response
    ) {
        switch placement {
        case .epollThread: router.add(method, path, handler)
        case .workerPool: router.addAsync(method, path) { request in handler(request) }
        }
    }

    /// Registers `handler` for `method` and `path` with a first step that answers without
    /// waiting when it can; see ``post(_:on:immediate:_:)``.
    func add(
        _ method: HTTPMethod, _ path: String, on router: Router,
        immediate: @escaping @Sendable (Request) -> Response?, _ handler: @escaping @Sendable (Request) -> Response
    ) {
        switch placement {
        case .epollThread: router.add(method, path, handler)
        case .workerPool: router.addAsync(method, path, immediate: immediate) { request in handler(request) }
        }
    }

    /// Registers a `POST` handler with a first step that answers without waiting when it can
    /// (returns nil otherwise). On the epoll threads `handler` simply runs; on the worker pool
    /// `immediate` runs on the epoll thread first and only the requests it hands over (nil) are
    /// offloaded. `immediate` must never wait on the store.
    func post(
        _ path: String, on router: Router, immediate: @escaping @Sendable (Request) -> Response?,
        _ handler: @escaping @Sendable (Request) -> Response
    ) {
        add(.post, path, on: router, immediate: immediate, handler)
    }

    /// Registers a `POST` handler of a back-channel endpoint that authenticates clients, with
    /// `immediate` as in ``post(_:on:immediate:_:)`` when given. On the epoll threads a request
    /// that may fetch an app's document (``RemoteDocumentRequests``) is handed to the worker pool
    /// instead, so no epoll thread ever waits on an app's server; on the worker pool everything
    /// already runs there.
    func postAuthenticatingClients(
        _ path: String, on router: Router, immediate: (@Sendable (Request) -> Response?)? = nil,
        _ handler: @escaping @Sendable (Request) -> Response
    ) {
        switch placement {
        case .epollThread:
            let unlessFetching: @Sendable (Request) -> Response? = {
                RemoteDocumentRequests.mayFetch($0) ? nil : handler($0)
            }
            router.addAsync(.post, path, immediate: unlessFetching) { handler($0) }
        case .workerPool:
            if let immediate {
                router.addAsync(.post, path, immediate: immediate) { handler($0) }
            } else {
                router.addAsync(.post, path) { handler($0) }
            }
        }
    }

    /// Registers a `GET` (and so `HEAD`) handler; see ``add(_:_:on:_:)``.
    func get(_ path: String, on router: Router, _ handler: @escaping @Sendable (Request) -> Response) {
        add(.get, path, on: router, handler)
    }

    /// Registers a `POST` handler; see ``add(_:_:on:_:)``.
    func post(_ path: String, on router: Router, _ handler: @escaping @Sendable (Request) -> Response) {
        add(.post, path, on: router, handler)
    }
}
