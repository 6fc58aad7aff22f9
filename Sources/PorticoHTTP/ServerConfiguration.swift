#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How an `HTTPServer` listens and which limits it enforces.
///
/// Every limit has a clear answer for the client: a body over `maxBodySize` (or a form body
/// over `maxFormBodySize`, or a route's own limit) gets 413, a request line or headers over
/// `maxHeaderSize` get libmicrohttpd's 414/431, an idle connection is closed after
/// `idleTimeout`, one still sending its request after `requestDeadline` is closed, connections beyond `maxConnections` are
/// refused, those from one address beyond `maxConnectionsPerClient` wait (up to
/// `maxWaitingConnectionsPerClient` of them; more are refused), and when `maxPendingAsyncRequests` async handlers are already waiting
/// or running, the next request for one gets 503 with `Retry-After` at once.
public struct ServerConfiguration: Sendable {
    /// The address to listen on: an IPv4 or IPv6 literal, or `localhost`.
    public var host: String
    /// The TCP port; 0 picks a free one (read it back from `HTTPServer.port`), as tests do.
    public var port: UInt16
    /// The number of epoll threads; one per core by default, since they only compute.
    public var threads: Int
    /// The largest request body accepted, in bytes; larger ones get 413 (1 MiB by default).
    public var maxBodySize: Int
    /// The most connections open at once; more are refused so a flood cannot exhaust memory.
    public var maxConnections: Int
    /// How long a connection may stay silent before it is closed (whole seconds).
    public var idleTimeout: Duration
    /// Per-connection memory for the request line and headers (libmicrohttpd's
    /// `MHD_OPTION_CONNECTION_MEMORY_LIMIT`); larger requests get 414 or 431.
    public var maxHeaderSize: Int
    /// The largest `application/x-www-form-urlencoded` body accepted (64 KiB by default): sign-in,
    /// consent and token requests are a few hundred bytes, a subject token 16 KiB at most, so a
    /// form body the size of `maxBodySize` is only ever an attack on the parser's memory.
    public var maxFormBodySize: Int
    /// The most connections one client address may hold open at once (0 for no limit). 128 by
    /// default: a browser opens six per host, so only a flood from one address meets it.
    /// Connections from ``trustedProxies`` are not counted, since every client behind a proxy
    /// shares its address; for them the same number bounds the requests in flight per client
    /// the proxy names, and past it that client gets 503 with `Retry-After` (see ``ClientLimits``).
    public var maxConnectionsPerClient: Int
    /// How many connections past ``maxConnectionsPerClient`` one address may open and keep
    /// waiting for a slot (512 by default, four times the cap); only past that are they
    /// refused. A request on a waiting connection is held until one of the client's served
    /// connections closes, or for ``waitingRequestHold``, after which it gets 503 with
    /// `Retry-After` and the connection stays open. Holding instead of refusing is what keeps
    /// a flood from one address cheap: a refused connection is reopened at once, and the
    /// accepting and closing would cost the server more than serving does.
    public var maxWaitingConnectionsPerClient: Int = 512
    /// How long a request on a waiting connection is held before its 503 (1 s by default, the
    /// `Retry-After` it carries).
    public var waitingRequestHold: Duration = .seconds(1)
    /// The most async requests (sign-ins, pages that wait) waiting for or running on the worker
    /// threads at once; the next gets 503 with `Retry-After: 1` instead of queueing without
    /// limit, so an overload sheds at once what it cannot serve within seconds. 64 per core
    /// by default (an Argon2id check takes tens of milliseconds per core).
    public var maxPendingAsyncRequests: Int
    /// Whether to write one JSON line per request to stderr; the benchmark turns it off.
    public var logRequests: Bool
    /// Threads that run asynchronous handlers (password hashing, waits on a database or another
    /// server), apart from the epoll threads and from Swift's cooperative pool; two per core
    /// by default, so a handler that blocks for a while does not hold up the others.
    public var workerThreads: Int
    /// How much lower than the epoll threads' the worker threads' scheduling priority is: their
    /// nice value is raised by this much (Linux; capped at 19; 0 for the same priority). 10 by
    /// default. Workers run the long jobs (an Argon2id hash is tens of milliseconds of CPU), the
    /// epoll threads every request's parsing and the quick answers; when both want the cores,
    /// the kernel then gives the epoll threads ~90 % of them (nice 10 weighs 110 against nice
    /// 0's 1024), so health checks and synchronous routes stay prompt under overload. It is a
    /// share, not a ban: with a core idle, workers run at full speed (nice values never starve
    /// a thread, unlike `SCHED_IDLE`), so a quiet server hashes as fast as before.
    public var workerNiceness: Int = 10
    /// How long a client has to send one whole request (request line, headers and body),
    /// counted from when its connection opened or its previous answer went out; past it the
    /// connection is closed (30 s by default; nil for none). `idleTimeout` restarts with every
    /// byte, so only this bounds a client that trickles bytes to hold a connection (slowloris).
    /// It also bounds how long a kept-alive connection may wait for its next request.
    public var requestDeadline: Duration? = .seconds(30)
    /// The host names requests may carry in `Host`; others get 421 (see ``HostAllowList``).
    /// Nil answers every name.
    public var allowedHosts: HostAllowList?
    /// Peers whose ``clientAddressHeader`` is believed for ``Request/remoteAddress``
    /// (see ``ForwardedClientAddress``); empty believes nobody's.
    public var trustedProxies: [IPAddressRange] = []
    /// The one header a trusted proxy names the client in; no other is read. `X-Forwarded-For`
    /// by default, which is what proxies append to.
    public var clientAddressHeader: ClientAddressHeader = .xForwardedFor

    /// Creates a configuration; the defaults suit a single node behind a proxy on loopback.
    public init(
        host: String = "127.0.0.1", port: UInt16 = 8080, threads: Int = ServerConfiguration.processorCount,
        maxBodySize: Int = 1 << 20, maxConnections: Int = 4_096, idleTimeout: Duration = .seconds(60),
        maxHeaderSize: Int = 32 * 1_024, logRequests: Bool = true,
        workerThreads: Int = 2 * ServerConfiguration.processorCount, maxFormBodySize: Int = 64 * 1_024,
        maxConnectionsPerClient: Int = 128, maxPendingAsyncRequests: Int = 64 * ServerConfiguration.processorCount
    ) {
        self.host = host
        self.port = port
        self.threads = threads
        self.maxBodySize = maxBodySize
        self.maxConnections = maxConnections
        self.idleTimeout = idleTimeout
        self.maxHeaderSize = maxHeaderSize
        self.logRequests = logRequests
        self.workerThreads = workerThreads
        self.maxFormBodySize = maxFormBodySize
        self.maxConnectionsPerClient = maxConnectionsPerClient
        self.maxPendingAsyncRequests = maxPendingAsyncRequests
    }

    /// The number of online processors, the default thread count.
    public static var processorCount: Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }
}
