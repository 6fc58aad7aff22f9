import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The part of a running server that libmicrohttpd's callbacks reach through their `cls`
/// pointer: the frozen routes, the limits, and the registry of suspended connections.
final class ServerCore: Sendable {
    /// The connections suspended for async handlers, and whether more may be suspended.
    private struct SuspendedRegistry {
        var exchanges: [ObjectIdentifier: AsyncExchange] = [:]
        var isClosed = false
    }

    let table: RouteTable
    let maxBodySize: Int
    let maxFormBodySize: Int
    let maxPendingAsyncRequests: Int
    let logger: RequestLogger
    /// Request counters and durations; nil when the server records no metrics.
    let metrics: HTTPMetrics?
    /// The `Host` names answered; nil for any.
    let allowedHosts: HostAllowList?
    /// Peers whose forwarding headers name the client.
    let trustedProxies: [IPAddressRange]
    let clientAddressHeader: ClientAddressHeader
    /// The per-client cap, per direct peer or per client behind a trusted proxy; nil for none.
    let limits: ClientLimits?
    /// Whether a request's start time is taken (for the log line or the duration histogram).
    private let measuresDuration: Bool
    /// Where async handlers run (see ``WorkerPool``).
    let workers: WorkerPool
    /// Requests between their request line and their completion; shutdown waits for zero.
    let activeRequests = Atomic<Int>(0)
    /// Async handlers started and not finished yet. A handler outlives its request when the
    /// client goes away first, so shutdown waits for this too before the process may exit.
    let activeHandlers = Atomic<Int>(0)
    /// Set once shutdown begins: responses then carry `Connection: close`.
    let isDraining = Atomic<Bool>(false)
    private let suspended = Mutex(SuspendedRegistry())
    /// The whole-request deadline's clocks; nil when the configuration has none.
    let deadlines: RequestDeadlines?
    /// Requests on connections waiting for a slot of their client; nil without a per-client cap.
    private let held: HeldRequests?

    init(table: RouteTable, configuration: ServerConfiguration, metrics: HTTPMetrics? = nil) {
        var table = table
        if let metrics {
            table.instrument { metrics.route($0, methods: $1) }
        }
        self.table = table
        self.maxBodySize = configuration.maxBodySize
        self.maxFormBodySize = configuration.maxFormBodySize
        self.maxPendingAsyncRequests = max(1, configuration.maxPendingAsyncRequests)
        self.logger = RequestLogger(isEnabled: configuration.logRequests)
        self.metrics = metrics
        self.allowedHosts = configuration.allowedHosts
        self.trustedProxies = configuration.trustedProxies
        self.clientAddressHeader = configuration.clientAddressHeader
        let limits = ClientLimits(
            limit: configuration.maxConnectionsPerClient, waitingLimit: configuration.maxWaitingConnectionsPerClient,
            proxies: configuration.trustedProxies)
        self.limits = limits
        self.measuresDuration = configuration.logRequests || metrics != nil
        self.workers = WorkerPool(
            threadCount: configuration.workerThreads, niceness: configuration.workerNiceness)
        self.deadlines = configuration.requestDeadline.map(RequestDeadlines.init(limit:))
        self.held = (limits?.waitingLimit ?? 0) > 0 ? HeldRequests(hold: configuration.waitingRequestHold) : nil
        held?.start { [weak self] exchange in self?.resume(exchange, with: nil) }
    }

    /// Stops the timers of deadlines and holds (shutdown, after the daemon stopped).
    func stopTimers() {
        deadlines?.stop()
        held?.stop()
    }

    // MARK: - libmicrohttpd callbacks

    /// Whether to keep a new connection from `address` (accept-policy callback): none once
    /// draining (this is how the server stops accepting), and none past the per-client cap.
    func admits(_ address: UnsafePointer<sockaddr>?) -> Bool {
        guard !isDraining.load(ordering: .relaxed) else { return false }
        return limits?.admits(address) ?? true
    }

    /// Creates the request's context from the raw target (URI-log callback).
    func beginRequest(target: UnsafePointer<CChar>?) -> UnsafeMutableRawPointer {
        activeRequests.wrappingAdd(1, ordering: .relaxed)
        let context = RequestContext(
            target: target.map { String(cString: $0) } ?? "",
            startNanoseconds: measuresDuration ? RequestLogger.now() : 0)
        return Unmanaged.passRetained(context).toOpaque()
    }

    /// Frees the request's context (request-completed callback), however the request ended.
    func endRequest(_ slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, on connection: OpaquePointer?) {
        if let connection { deadlines?.answered(connection) }
        guard let slot, let raw = slot.pointee else { return }
        slot.pointee = nil
        let context = Unmanaged<RequestContext>.fromOpaque(raw).takeRetainedValue()
        if let client = context.countedClient {
            limits?.endRequest(from: client)
        }
        activeRequests.wrappingSubtract(1, ordering: .releasing)
    }

    /// A connection opened or closed (connection-notify callback); `context` is its socket
    /// context, where the deadline keeps the connection's clock.
    func connectionNotice(
        _ connection: OpaquePointer, context: UnsafeMutablePointer<UnsafeMutableRawPointer?>, isOpening: Bool
    ) {
        if let limits {
            let address = portico_mhd_client_address(connection)
            if isOpening {
                limits.opened(connection, from: address)
            } else if let promoted = limits.closed(connection, from: address) {
                held?.releaseNow(promoted)
            }
        }
        guard let deadlines else { return }
        if isOpening {
            context.pointee = deadlines.opened(connection)
        } else if let entry = context.pointee {
            context.pointee = nil
            deadlines.closed(entry)
        }
    }

    /// The access-handler callback: called once when headers are parsed, once per body chunk,
    /// once at the end (`uploadSize` 0), and once more after a resume.
    func handle(
        connection: OpaquePointer, method: UnsafePointer<CChar>?, uploadData: UnsafePointer<CChar>?,
        uploadSize: UnsafeMutablePointer<Int>?, slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
    ) -> MHD_Result {
        guard let slot else { return .NO }
        let context: RequestContext
        if let raw = slot.pointee {
            context = Unmanaged<RequestContext>.fromOpaque(raw).takeUnretainedValue()
        } else {
            // Only without the URI-log callback; kept so a context always exists.
            slot.pointee = beginRequest(target: nil)
            guard let raw = slot.pointee else { return .NO }
            context = Unmanaged<RequestContext>.fromOpaque(raw).takeUnretainedValue()
        }
        let chunkSize = uploadSize?.pointee ?? 0

        switch context.phase {
        case .headers:
            // Answering here would make libmicrohttpd close the connection, so only an
            // oversized declared body is answered now (closing is right for it anyway).
            context.method = Self.methodName(method)
            context.bodyLimit = bodyLimit(for: context, on: connection)
            if let declared = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length"),
                let length = Int(String(cString: declared)), length > context.bodyLimit
            {
                context.phase = .answered
                deadlines?.answering(connection)
                return send(Self.tooLarge, on: connection, for: context)
            }
            context.phase = .body
            return .YES
        case .body:
            if chunkSize > 0 {
                uploadSize?.pointee = 0
                guard context.body.count + chunkSize <= context.bodyLimit else {
                    context.phase = .tooLarge
                    context.body = []
                    return .YES
                }
                if let uploadData {
                    uploadData.withMemoryRebound(to: UInt8.self, capacity: chunkSize) {
                        context.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: chunkSize))
                    }
                }
                return .YES
            }
            return dispatch(context, on: connection)
        case .tooLarge:
            if chunkSize > 0 {
                // A chunked body has no declared length; stop reading once it is clearly
                // abusive instead of draining it for ever.
                uploadSize?.pointee = 0
                context.discarded += chunkSize
                return context.discarded > context.bodyLimit ? .NO : .YES
            }
            context.phase = .answered
            deadlines?.answering(connection)
            return send(Self.tooLarge, on: connection, for: context)
        case .suspended(let exchange):
            context.phase = .answered
            let response = exchange.response.withLock { $0.take() } ?? Self.internalError
            return send(response, on: connection, for: context)
        case .held(let exchange):
            if let response = exchange.response.withLock({ $0.take() }) {
                // Shutdown's answer to everything still suspended.
                context.phase = .answered
                return send(response, on: connection, for: context)
            }
            return dispatch(context, on: connection)
        case .answered:
            uploadSize?.pointee = 0
            return .YES
        }
    }

    /// The body limit of a request: its route's own, else `maxFormBodySize` for a form body,
    /// else `maxBodySize`.
    private func bodyLimit(for context: RequestContext, on connection: OpaquePointer) -> Int {
        if let own = table.bodyLimits[context.path] { return own }
        if let type = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Type"),
            strncasecmp(type, "application/x-www-form-urlencoded", 33) == 0
        {
            return min(maxFormBodySize, maxBodySize)
        }
        return maxBodySize
    }

    // MARK: - Dispatch

    /// The method token; the common ones come from constants instead of a fresh string.
    private static func methodName(_ method: UnsafePointer<CChar>?) -> String {
        guard let method else { return "" }
        if strcmp(method, "GET") == 0 { return HTTPMethod.get.rawValue }
        if strcmp(method, "POST") == 0 { return HTTPMethod.post.rawValue }
        return String(cString: method)
    }

    private static let tooLarge = Response.text("Request body too large", status: .contentTooLarge)
    private static let internalError = Response.text("Internal Server Error", status: .internalServerError)
    private static let notFound = Response.text("Not Found", status: .notFound)
    private static let overloaded: Response = {
        var response = Response.text("Server is busy; try again shortly", status: .serviceUnavailable)
        response.headers["Retry-After"] = "1"
        return response
    }()

    /// The 503 for a request that finds the worker queue full: the router's own answer when it
    /// gives one (always 503, with `Retry-After` added when it has none), else plain text.
    private func overloadedAnswer(to request: Request) -> Response {
        guard let make = table.overloaded, var response = make(request) else { return Self.overloaded }
        response.status = .serviceUnavailable
        if response.headers["Retry-After"] == nil { response.headers["Retry-After"] = "1" }
        return response
    }

    private func dispatch(_ context: RequestContext, on connection: OpaquePointer) -> MHD_Result {
        if let limits, limits.isWaiting(connection, from: portico_mhd_client_address(connection)) {
            if case .held = context.phase {
                // Held its while and still no slot: the client is told to come back, on a
                // connection kept open, so that it has no reason to open another.
                context.phase = .answered
                return send(Self.overloaded, on: connection, for: context)
            }
            return hold(context, on: connection)
        }
        context.phase = .answered
        deadlines?.answering(connection)
        if let allowedHosts, !allowedHosts.allows(host: Self.header("Host", of: connection)) {
            return send(HostAllowList.refusal, on: connection, for: context)
        }
        let method = HTTPMethod(rawValue: context.method)
        let path = context.path
        let match: RouteTable.Match
        do {
            match = try table.match(method, path: path)
        } catch {
            return send(.text(error.message, status: error.status), on: connection, for: context)
        }
        switch match {
        case .notFound:
            return send(Self.notFound, on: connection, for: context)
        case .methodNotAllowed(let allowed):
            var response = Response.text("Method Not Allowed", status: .methodNotAllowed)
            response.headers["Allow"] = allowed
            return send(response, on: connection, for: context)
        case .handler(let handler, let parameters, let route):
            context.route = route
            switch handler {
            case .constant(let prepared):
                return send(prepared, on: connection, for: context)
            case .current(let current):
                return send(current(), on: connection, for: context)
            case .immediate(let run):
                let request: Request
                switch makeRequest(context, on: connection, parameters: parameters) {
                case .success(let made): request = made
                case .failure(let error):
                    return send(.text(error.message, status: error.status), on: connection, for: context)
                }
                guard admit(request, context, on: connection) else {
                    return send(overloadedAnswer(to: request), on: connection, for: context)
                }
                return send(Self.respond(to: request) { try run(request) }, on: connection, for: context)
            case .offloaded(let run):
                return offload(context, on: connection, parameters: parameters, first: nil, run: run)
            case .offloadedUnless(let first, let run):
                return offload(context, on: connection, parameters: parameters, first: first, run: run)
            }
        }
    }

    /// Answers with `first` when it answers, else runs `run` on the worker pool with the
    /// connection suspended, or answers 503 at once when the pool's queue is full.
    private func offload(
        _ context: RequestContext, on connection: OpaquePointer, parameters: [String: String],
        first: (@Sendable (Request) -> Response?)?, run: @escaping @Sendable (Request) async throws -> Response
    ) -> MHD_Result {
        let request: Request
        switch makeRequest(context, on: connection, parameters: parameters) {
        case .success(let made): request = made
        case .failure(let error):
            return send(.text(error.message, status: error.status), on: connection, for: context)
        }
        guard admit(request, context, on: connection) else {
            return send(overloadedAnswer(to: request), on: connection, for: context)
        }
        if let first, let response = first(request) {
            return send(response, on: connection, for: context)
        }
        // Bounded: past the limit, waiting would only make every queued request late.
        guard activeHandlers.load(ordering: .relaxed) < maxPendingAsyncRequests else {
            return send(overloadedAnswer(to: request), on: connection, for: context)
        }
        let exchange = AsyncExchange(connection: ConnectionHandle(pointer: connection))
        guard suspend(exchange) else {
            let response = Response.text("Server is shutting down", status: .serviceUnavailable)
            return send(response, on: connection, for: context)
        }
        context.phase = .suspended(exchange)
        activeHandlers.wrappingAdd(1, ordering: .relaxed)
        Task(executorPreference: workers) {
            defer { self.activeHandlers.wrappingSubtract(1, ordering: .releasing) }
            let response: Response
            do {
                response = try await run(request)
            } catch {
                response = Self.errorResponse(error, for: request)
            }
            self.resume(exchange, with: response)
        }
        return .YES
    }

    /// Counts `request` against its client's share when a trusted proxy relayed it (its
    /// connection is not counted, see ``ClientLimits``); false when that client already has
    /// `maxConnectionsPerClient` requests in flight. Constant routes (health, discovery, keys)
    /// are never counted: they cost less than the counting.
    private func admit(_ request: Request, _ context: RequestContext, on connection: OpaquePointer) -> Bool {
        guard let limits, !trustedProxies.isEmpty, limits.isProxy(portico_mhd_client_address(connection)) else {
            return true
        }
        let client = request.remoteAddress
        guard limits.beginRequest(from: client) else { return false }
        context.countedClient = client
        return true
    }

    /// The request a handler sees: query parsed, headers and body taken over from `context`;
    /// a query that is not valid form encoding fails with the error to answer.
    private func makeRequest(
        _ context: RequestContext, on connection: OpaquePointer, parameters: [String: String]
    ) -> Result<Request, HTTPError> {
        var query = FormParameters()
        if let rawQuery = context.rawQuery {
            do {
                query = try FormParameters(decoding: Array(rawQuery.utf8))
            } catch {
                return .failure(error)
            }
        }
        var request = Request(
            method: HTTPMethod(rawValue: context.method), path: context.path,
            rawQuery: context.rawQuery.map(String.init),
            query: query, headers: Self.headers(of: connection), body: context.body, pathParameters: parameters)
        request.peer = .address(PeerAddress(portico_mhd_client_address(connection)))
        if !trustedProxies.isEmpty {
            request.forwardedClient = ForwardedClientAddress.resolve(
                peer: request.peerAddress, headers: request.headers, trusted: trustedProxies,
                header: clientAddressHeader)
        }
        context.body = []
        return .success(request)
    }

    private static func respond(to request: Request, _ run: () throws -> Response) -> Response {
        do {
            return try run()
        } catch {
            return errorResponse(error, for: request)
        }
    }

    private static func errorResponse(_ error: any Error, for request: Request) -> Response {
        if let error = error as? HTTPError {
            return .text(error.message, status: error.status)
        }
        RequestLogger.logError(method: request.method.rawValue, path: request.path, error: String(describing: error))
        return internalError
    }

    /// One request header, read without building the others.
    private static func header(_ name: String, of connection: OpaquePointer) -> String? {
        MHD_lookup_connection_value(connection, .HEADER_KIND, name).map { String(cString: $0) }
    }

    private static func headers(of connection: OpaquePointer) -> HTTPHeaders {
        var headers = HTTPHeaders()
        withUnsafeMutablePointer(to: &headers) { pointer in
            _ = MHD_get_connection_values_n(
                connection, .HEADER_KIND,
                { cls, _, key, keySize, value, valueSize in
                    guard let cls, let key else { return .YES }
                    let headers = cls.assumingMemoryBound(to: HTTPHeaders.self)
                    let name = key.withMemoryRebound(to: UInt8.self, capacity: keySize) {
                        String(decoding: UnsafeBufferPointer(start: $0, count: keySize), as: UTF8.self)
                    }
                    let text =
                        value.map { value in
                            value.withMemoryRebound(to: UInt8.self, capacity: valueSize) {
                                String(decoding: UnsafeBufferPointer(start: $0, count: valueSize), as: UTF8.self)
                            }
                        } ?? ""
                    headers.pointee.add(name, value: text)
                    return .YES
                }, pointer)
        }
        return headers
    }

    // MARK: - Responses

    private func send(_ response: Response, on connection: OpaquePointer, for context: RequestContext) -> MHD_Result {
        let created = response.body.withUnsafeBytes { buffer in
            MHD_create_response_from_buffer(
                buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let mhdResponse = created else { return .NO }
        defer { MHD_destroy_response(mhdResponse) }
        for (name, value) in response.headers where MHD_add_response_header(mhdResponse, name, value) != .YES {
            // libmicrohttpd refuses fields with CR/LF or an empty name: a handler bug, never
            // something to pass on to the client.
            RequestLogger.logError(
                method: context.method, path: context.path, error: "invalid response header field: \(name)")
            return send(Self.internalError, on: connection, for: context)
        }
        if isDraining.load(ordering: .relaxed) {
            _ = MHD_add_response_header(mhdResponse, "Connection", "close")
        }
        let result = MHD_queue_response(connection, UInt32(clamping: response.status.rawValue), mhdResponse)
        record(response.status.rawValue, bytes: response.body.count, for: context)
        return result
    }

    /// Logs and counts an answered request; one clock read serves both.
    @inline(__always)
    private func record(_ status: Int, bytes: Int, for context: RequestContext) {
        guard measuresDuration else { return }
        let duration = RequestLogger.now() &- context.startNanoseconds
        metrics?.record(route: context.route, method: context.method, status: status, nanoseconds: duration)
        if logger.isEnabled {
            logger.logRequest(
                method: context.method, path: context.path, status: status, durationNanoseconds: duration, bytes: bytes)
        }
    }

    /// Queues a prepared constant response as is; while draining it needs `Connection: close`
    /// added, so it then goes the ordinary way.
    private func send(_ prepared: PreparedResponse, on connection: OpaquePointer, for context: RequestContext)
        -> MHD_Result
    {
        guard let pointer = prepared.pointer, !isDraining.load(ordering: .relaxed) else {
            return send(prepared.response, on: connection, for: context)
        }
        let status = prepared.response.status.rawValue
        let result = MHD_queue_response(connection, UInt32(clamping: status), pointer)
        record(status, bytes: prepared.response.body.count, for: context)
        return result
    }

    // MARK: - Suspension

    /// Suspends a whole request whose connection waits for a slot of its client, until the
    /// connection is served or the hold ends (``HeldRequests``); then it is dispatched again.
    private func hold(_ context: RequestContext, on connection: OpaquePointer) -> MHD_Result {
        deadlines?.answering(connection)
        let exchange = AsyncExchange(connection: ConnectionHandle(pointer: connection))
        guard let held, suspend(exchange) else {
            context.phase = .answered
            return send(Self.overloaded, on: connection, for: context)
        }
        context.phase = .held(exchange)
        held.hold(exchange)
        // Served meanwhile (between the check and the hold): go on at once.
        if let limits, !limits.isWaiting(connection, from: portico_mhd_client_address(connection)) {
            held.releaseNow(connection)
        }
        return .YES
    }

    /// Registers `exchange` and suspends its connection, unless shutdown has closed the
    /// registry. Both happen under the registry lock so that shutdown cannot miss it.
    private func suspend(_ exchange: AsyncExchange) -> Bool {
        suspended.withLock { registry in
            guard !registry.isClosed else { return false }
            registry.exchanges[ObjectIdentifier(exchange)] = exchange
            MHD_suspend_connection(exchange.connection.pointer)
            return true
        }
    }

    /// Hands `response` over and resumes the connection, unless shutdown already did.
    private func resume(_ exchange: AsyncExchange, with response: Response?) {
        suspended.withLock { registry in
            guard registry.exchanges.removeValue(forKey: ObjectIdentifier(exchange)) != nil else { return }
            exchange.response.withLock { $0 = response }
            MHD_resume_connection(exchange.connection.pointer)
        }
    }

    /// Answers every still-suspended request with 503 and resumes it, and refuses further
    /// suspensions, so that `MHD_stop_daemon` never meets a suspended connection.
    func resumeAllSuspended() -> Int {
        suspended.withLock { registry in
            registry.isClosed = true
            let count = registry.exchanges.count
            for exchange in registry.exchanges.values {
                let response = Response.text("Server is shutting down", status: .serviceUnavailable)
                exchange.response.withLock { $0 = response }
                MHD_resume_connection(exchange.connection.pointer)
            }
            registry.exchanges.removeAll()
            return count
        }
    }
}
