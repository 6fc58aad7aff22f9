/// One HTTP request as a handler sees it: everything is read and decoded before the handler
/// runs, so a `Request` is a plain value that can cross into an async handler's task.
public struct Request: Sendable {
    /// The request method.
    public var method: HTTPMethod
    /// The path as sent on the request line, still percent-encoded and without the query, so
    /// that logs show what the client sent; routing decodes each segment separately.
    public var path: String
    /// The query string after `?`, undecoded, or nil when the target has no `?`.
    public var rawQuery: String?
    /// The decoded query parameters, in order, repeats kept (`+` is a space).
    public var query: FormParameters
    /// The request's header fields (lookup ignores case).
    public var headers: HTTPHeaders
    /// The request body, at most `ServerConfiguration.maxBodySize` bytes.
    public var body: [UInt8]
    /// Values of the route's `:name` segments, percent-decoded.
    public var pathParameters: [String: String]
    /// The client's IP address as text (`127.0.0.1`, `::1`), or empty when unknown: the one a
    /// trusted proxy forwarded (``ServerConfiguration/trustedProxies``), else the TCP peer's.
    ///
    /// Formatted on first use rather than for every request, since most handlers never ask.
    public var remoteAddress: String {
        get { forwardedClient ?? peerAddress }
        set {
            peer = .text(newValue)
            forwardedClient = nil
        }
    }

    /// The TCP peer's address, whatever any header says: for decisions that only a peer on this
    /// very host may get (loopback-only metrics).
    public var peerAddress: String {
        switch peer {
        case .text(let text): text
        case .address(let address): address.text
        }
    }

    /// The client address that trusted proxies forwarded, when there are any.
    var forwardedClient: String?

    /// Where `remoteAddress` comes from: text set by hand, or the raw socket address.
    enum Peer: Sendable {
        case text(String)
        case address(PeerAddress)
    }

    var peer: Peer

    /// Creates a request by hand, for calling handlers directly in tests.
    public init(
        method: HTTPMethod, path: String, rawQuery: String? = nil, query: FormParameters = FormParameters(),
        headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], pathParameters: [String: String] = [:],
        remoteAddress: String = ""
    ) {
        self.method = method
        self.path = path
        self.rawQuery = rawQuery
        self.query = query
        self.headers = headers
        self.body = body
        self.pathParameters = pathParameters
        self.peer = .text(remoteAddress)
    }
}
