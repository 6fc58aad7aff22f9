import CMicroHTTPD
import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An HTTP/1.1 server on libmicrohttpd: an epoll thread pool parses requests and runs
/// synchronous handlers, while async handlers run on tasks with their connection suspended.
///
/// ```swift
/// let router = Router()
/// router.get("/healthz") { _ in .json(raw: #"{"status":"ok"}"#) }
/// let server = HTTPServer(configuration: ServerConfiguration(port: 8080), router: router)
/// try server.start()
/// server.runUntilTerminated()   // SIGINT/SIGTERM → graceful shutdown
/// ```
public final class HTTPServer: Sendable {
    /// A daemon pointer that several threads may hold.
    ///
    /// `@unchecked` is safe because the pointer is only used by `shutdown`, after it has been
    /// taken out of `state` under its lock, so exactly one caller drains and stops the daemon.
    private struct DaemonHandle: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private enum State: Sendable {
        case idle
        case running(DaemonHandle, ServerCore)
        case stopped
    }

    /// The configuration the server was created with.
    public let configuration: ServerConfiguration
    private let router: Router
    private let state = Mutex(State.idle)
    private let boundPort = Atomic<UInt16>(0)
    /// The request instruments, when the server was given a registry.
    private let metrics: HTTPMetrics?

    /// Creates a server for `router`; nothing listens until `start()`.
    ///
    /// With `metrics`, the server counts every request in it by route pattern, method and
    /// status (`portico_http_requests_total`), records durations
    /// (`portico_http_request_duration_seconds`), and samples open connections and requests in
    /// flight at scrape time; serving the registry (a `/metrics` route) is up to the caller.
    /// Without it, requests cost nothing extra.
    public init(
        configuration: ServerConfiguration = ServerConfiguration(), router: Router, metrics: MetricsRegistry? = nil
    ) {
        self.configuration = configuration
        self.router = router
        self.metrics = metrics.map(HTTPMetrics.init(registry:))
        self.metrics?.registerGauges(
            connections: { [weak self] in
                self?.sampleCore { _, daemon in
                    Double(portico_mhd_current_connections(daemon))
                }
            },
            inFlight: { [weak self] in
                self?.sampleCore { core, _ in
                    Double(core.activeRequests.load(ordering: .relaxed))
                }
            })
    }

    /// Reads from the running daemon under the state lock, so that `shutdown` cannot stop it
    /// meanwhile; nil when it is not running.
    private func sampleCore(_ read: (ServerCore, OpaquePointer) -> Double) -> Double? {
        state.withLock { state in
            guard case .running(let daemon, let core) = state else { return nil }
            return read(core, daemon.pointer)
        }
    }

    deinit {
        // A server dropped without `shutdown` must not leave threads serving a router nobody
        // holds; in-flight requests get a short grace period.
        shutdown(timeout: .seconds(1))
    }

    /// The port actually bound (useful with port 0), or 0 before `start()`.
    public var port: UInt16 {
        boundPort.load(ordering: .acquiring)
    }

    /// Requests that have begun and not completed yet; tests use it to prove nothing leaks.
    var activeRequestCount: Int {
        state.withLock { state in
            if case .running(_, let core) = state { core.activeRequests.load(ordering: .acquiring) } else { 0 }
        }
    }

    /// The connections the daemon holds now, or nil when it is not running; tests wait on it.
    var connectionCount: Int? {
        sampleCore { _, daemon in Double(portico_mhd_current_connections(daemon)) }.map { Int($0) }
    }

    /// Whether `shutdown` has begun draining; tests wait for it.
    var isShuttingDown: Bool {
        state.withLock { state in
            if case .stopped = state { true } else { false }
        }
    }

    /// Starts listening; the router's routes are frozen from now on.
    ///
    /// Throws `HTTPServerError` when the address is invalid, the port is taken, or the server
    /// was started before.
    public func start() throws {
        try state.withLock { state in
            guard case .idle = state else { throw HTTPServerError.alreadyStarted }
            let core = ServerCore(table: router.freeze(), configuration: configuration, metrics: metrics)
            let daemon = try startDaemon(core)
            state = .running(DaemonHandle(pointer: daemon), core)
            boundPort.store(portico_mhd_bound_port(daemon), ordering: .releasing)
        }
    }

    /// Whether another socket listens on `address` (bind fails with `EADDRINUSE`), tried with
    /// `SO_REUSEADDR` as libmicrohttpd binds, so a port in TIME_WAIT does not count as taken.
    private static func isTaken(_ address: inout SocketAddress.Listen) -> Bool {
        let family = address.isIPv6 ? AF_INET6 : AF_INET
        let descriptor = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let length = socklen_t(address.isIPv6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        return bound != 0 && errno == EADDRINUSE
    }

    private func startDaemon(_ core: ServerCore) throws -> OpaquePointer {
        var address = try SocketAddress.listen(host: configuration.host, port: configuration.port)
        if configuration.port != 0, Self.isTaken(&address) {
            // Found before libmicrohttpd tries: it would log a line of its own to stderr first.
            throw HTTPServerError.addressInUse(host: configuration.host, port: configuration.port)
        }
        var flags =
            MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
            | MHD_USE_ERROR_LOG.rawValue
        if address.isIPv6 {
            flags |= MHD_USE_IPv6.rawValue
        }
        let retained = Unmanaged.passRetained(core)
        let daemon = withUnsafeMutablePointer(to: &address.storage) { storage in
            var options = [
                MHD_OptionItem(
                    option: .CONNECTION_LIMIT, value: max(1, configuration.maxConnections), ptr_value: nil),
                MHD_OptionItem(
                    option: .CONNECTION_TIMEOUT,
                    value: Int(max(1, configuration.idleTimeout.components.seconds)), ptr_value: nil),
                MHD_OptionItem(
                    option: .CONNECTION_MEMORY_LIMIT, value: max(1_024, configuration.maxHeaderSize),
                    ptr_value: nil),
                // Strict parsing: an HTTP/1.1 request without `Host`, or with spaces in field
                // names, gets 400 instead of being guessed at.
                MHD_OptionItem(option: .STRICT_FOR_CLIENT, value: 1, ptr_value: nil),
                MHD_OptionItem(option: .SOCK_ADDR, value: 0, ptr_value: UnsafeMutableRawPointer(storage)),
            ]
            // No `PER_IP_CONNECTION_LIMIT`: it would count a trusted proxy like any client, so
            // the accept policy below keeps the per-client cap instead (``ClientLimits``).
            if configuration.threads > 1 {
                options.append(
                    MHD_OptionItem(option: .THREAD_POOL_SIZE, value: configuration.threads, ptr_value: nil))
            }
            options.append(MHD_OptionItem(option: .END, value: 0, ptr_value: nil))
            return portico_mhd_start_daemon_with_callbacks(
                flags, configuration.port,
                { cls, address, _ in
                    // Once draining, a new connection is closed at once: this is how the server
                    // stops accepting (see `shutdown`); so is one past the per-client cap.
                    guard let cls else { return .NO }
                    return Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().admits(address) ? .YES : .NO
                },
                { cls, connection, _, method, _, uploadData, uploadSize, slot in
                    guard let cls, let connection else { return .NO }
                    return Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().handle(
                        connection: connection, method: method, uploadData: uploadData, uploadSize: uploadSize,
                        slot: slot)
                }, retained.toOpaque(),
                { cls, connection, slot, _ in
                    guard let cls else { return }
                    Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().endRequest(slot, on: connection)
                },
                { cls, target, _ in
                    guard let cls else { return nil }
                    return Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().beginRequest(target: target)
                },
                { cls, connection, socketContext, notice in
                    guard let cls, let connection, let socketContext else { return }
                    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
                    core.connectionNotice(
                        connection, context: socketContext, isOpening: notice == .CONNECTION_NOTIFY_STARTED)
                }, options)
        }
        guard let daemon else {
            let code = errno
            let reason = String(cString: strerror(code))
            retained.release()
            if code == EADDRINUSE {
                throw HTTPServerError.addressInUse(host: configuration.host, port: configuration.port)
            }
            throw HTTPServerError.cannotListen(host: configuration.host, port: configuration.port, reason: reason)
        }
        return daemon
    }

    /// Stops gracefully, blocking until done: stops accepting connections, lets in-flight
    /// requests (async ones included) finish for up to `timeout`, answers any still suspended
    /// with 503, stops the daemon, then waits up to `timeout` more (10 s at least) for the
    /// async handlers of those 503s to end and for the worker threads to exit. Safe to call more than once or
    /// before `start()`.
    public func shutdown(timeout: Duration = .seconds(10)) {
        let taken: (DaemonHandle, ServerCore)? = state.withLock { state in
            guard case .running(let daemon, let core) = state else {
                state = .stopped
                return nil
            }
            state = .stopped
            return (daemon, core)
        }
        guard let (daemon, core) = taken else { return }
        // Stop accepting: from now on the accept policy closes every new connection. Not
        // `MHD_quiesce_daemon`: in 0.9.75 it takes the listening socket out of each pool thread's
        // epoll set from this thread while that thread may do the same, and the loser's
        // `epoll_ctl` fails into `MHD_PANIC`, aborting the process (ShutdownLoopTests).
        core.isDraining.store(true, ordering: .relaxed)
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while core.activeRequests.load(ordering: .acquiring) > 0 && clock.now < deadline {
            usleep(2_000)
        }
        if core.resumeAllSuspended() > 0 {
            // Give the resumed connections a moment to write their 503 before the stop.
            let grace = clock.now.advanced(by: .milliseconds(500))
            while core.activeRequests.load(ordering: .acquiring) > 0 && clock.now < grace {
                usleep(2_000)
            }
        }
        // Closes the listening socket too.
        MHD_stop_daemon(daemon.pointer)
        core.stopTimers()
        // Handlers answered 503 above still run; what they use (the store, keys) must outlive
        // them, and so must the process, so they get another `timeout` (10 s at least) to end:
        // the caller closes the store only after this returns.
        let handlerDeadline = clock.now.advanced(by: max(timeout, Self.handlerGrace))
        while core.activeHandlers.load(ordering: .acquiring) > 0 && clock.now < handlerDeadline {
            usleep(2_000)
        }
        core.workers.stop(timeout: max(.seconds(1), handlerDeadline - clock.now))
        // Balances the retain handed to libmicrohttpd in `start()`; tasks still running hold
        // their own references.
        Unmanaged.passUnretained(core).release()
    }

    /// The least time `shutdown` gives async handlers it cut off to end.
    private static let handlerGrace = Duration.seconds(10)

    /// Blocks until the process receives SIGINT or SIGTERM, then shuts down gracefully, so a
    /// command-line `serve` can simply return and exit 0.
    public func runUntilTerminated(shutdownTimeout: Duration = .seconds(10)) {
        TerminationSignals.wait()
        shutdown(timeout: shutdownTimeout)
    }
}
