/// A handler as the server runs it: on the epoll thread, or on a task with the connection
/// suspended.
enum RouteHandler: Sendable {
    /// CPU-only work answered on the libmicrohttpd thread that read the request.
    case immediate(@Sendable (Request) throws -> Response)
    /// Work that waits; the connection is suspended while a task runs it.
    case offloaded(@Sendable (Request) async throws -> Response)
    /// Work that usually waits but sometimes need not: `first` runs on the epoll thread and
    /// answers when it can without waiting; when it returns nil, the request is offloaded to
    /// `run` as with ``offloaded(_:)``.
    case offloadedUnless(first: @Sendable (Request) -> Response?, run: @Sendable (Request) async throws -> Response)
    /// The same response every time, prepared once.
    case constant(PreparedResponse)
    /// The response its owner currently keeps, read per request without building a `Request`
    /// (a document that changes now and then but never depends on the request).
    case current(@Sendable () -> PreparedResponse)
}

/// The immutable routing table the server reads without a lock once it has started.
struct RouteTable: Sendable {
    /// Body limits of single paths, below the server's (``Router/limitBodySize(_:for:)``).
    var bodyLimits: [String: Int] = [:]

    /// One segment of a route pattern.
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    /// A route with `:name` segments and its handlers by method.
    struct PatternRoute: Sendable {
        let segments: [Segment]
        var handlers: [HTTPMethod: RouteHandler]
        /// Its metrics series, when the server records metrics.
        var metrics: RouteMetrics?
    }

    /// The handlers of a path without parameters.
    struct ExactRoute: Sendable {
        var handlers: [HTTPMethod: RouteHandler] = [:]
        /// Its metrics series, when the server records metrics.
        var metrics: RouteMetrics?
    }

    /// The outcome of looking up a request.
    enum Match: Sendable {
        case handler(RouteHandler, parameters: [String: String], metrics: RouteMetrics?)
        case methodNotAllowed(allowed: String)
        case notFound
    }

    private var exact: [String: ExactRoute] = [:]
    private var patterns: [PatternRoute] = []
    var fallback: RouteHandler?
    /// What a request to an async route gets when the worker queue is full; nil for the plain text.
    var overloaded: (@Sendable (Request) -> Response?)?

    mutating func add(_ method: HTTPMethod, _ pattern: String, _ handler: RouteHandler) {
        let segments = pattern.split(separator: "/", omittingEmptySubsequences: false).map { part in
            part.hasPrefix(":") && part.count > 1 ? Segment.parameter(String(part.dropFirst())) : .literal(String(part))
        }
        if !segments.contains(where: { if case .parameter = $0 { true } else { false } }) {
            exact[pattern, default: ExactRoute()].handlers[method] = handler
            return
        }
        if let index = patterns.firstIndex(where: { $0.segments == segments }) {
            patterns[index].handlers[method] = handler
        } else {
            patterns.append(PatternRoute(segments: segments, handlers: [method: handler]))
        }
    }

    /// Finds the handler for `method` and the raw (percent-encoded) `path`; throws 400 when a
    /// path segment is badly encoded.
    func match(_ method: HTTPMethod, path: String) throws(HTTPError) -> Match {
        var allowed: Set<HTTPMethod> = []
        let hasEscapes = path.utf8.contains(UInt8(ascii: "%"))
        var decodedSegments: [String]?
        if hasEscapes {
            let segments = try Self.decodedSegments(of: path)
            decodedSegments = segments
            if !segments.contains(where: { $0.contains("/") }), let route = exact[segments.joined(separator: "/")],
                let found = try lookup(route.handlers, method, &allowed)
            {
                return .handler(found, parameters: [:], metrics: route.metrics)
            }
        } else if let route = exact[path], let found = try lookup(route.handlers, method, &allowed) {
            return .handler(found, parameters: [:], metrics: route.metrics)
        }
        if !patterns.isEmpty {
            let segments: [String]
            if let decodedSegments {
                segments = decodedSegments
            } else {
                segments = try Self.decodedSegments(of: path)
            }
            for route in patterns {
                guard let parameters = Self.bind(route.segments, to: segments) else { continue }
                if let found = try lookup(route.handlers, method, &allowed) {
                    return .handler(found, parameters: parameters, metrics: route.metrics)
                }
            }
        }
        if !allowed.isEmpty {
            return .methodNotAllowed(allowed: allowed.map(\.rawValue).sorted().joined(separator: ", "))
        }
        if let fallback {
            return .handler(fallback, parameters: [:], metrics: nil)
        }
        return .notFound
    }

    /// Creates every route's metrics series with `make(pattern, methods)` before the server
    /// answers its first request, so that recording never creates or looks anything up. A
    /// route with `GET` also answers `HEAD`, which gets series of its own.
    mutating func instrument(_ make: (String, [HTTPMethod]) -> RouteMetrics) {
        for path in exact.keys.sorted() {
            let methods = Self.methods(of: exact[path]?.handlers ?? [:])
            exact[path]?.metrics = make(path, methods)
        }
        for index in patterns.indices {
            let pattern = patterns[index].segments.map { segment in
                switch segment {
                case .literal(let text): text
                case .parameter(let name): ":" + name
                }
            }.joined(separator: "/")
            let methods = Self.methods(of: patterns[index].handlers)
            patterns[index].metrics = make(pattern, methods)
        }
    }

    private static func methods(of handlers: [HTTPMethod: RouteHandler]) -> [HTTPMethod] {
        var methods = Set(handlers.keys)
        if methods.contains(.get) { methods.insert(.head) }
        return methods.sorted { $0.rawValue < $1.rawValue }
    }

    private func lookup(
        _ handlers: [HTTPMethod: RouteHandler]?, _ method: HTTPMethod, _ allowed: inout Set<HTTPMethod>
    ) throws(HTTPError) -> RouteHandler? {
        guard let handlers else { return nil }
        if let handler = handlers[method] ?? (method == .head ? handlers[.get] : nil) {
            return handler
        }
        allowed.formUnion(handlers.keys)
        if handlers[.get] != nil {
            allowed.insert(.head)
        }
        return nil
    }

    private static func decodedSegments(of path: String) throws(HTTPError) -> [String] {
        var result: [String] = []
        for part in Array(path.utf8).split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            result.append(try PercentDecoding.decode(part, plusAsSpace: false))
        }
        return result
    }

    private static func bind(_ pattern: [Segment], to segments: [String]) -> [String: String]? {
        guard pattern.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (expected, actual) in zip(pattern, segments) {
            switch expected {
            case .literal(let literal):
                guard literal == actual else { return nil }
            case .parameter(let name):
                guard !actual.isEmpty else { return nil }
                parameters[name] = actual
            }
        }
        return parameters
    }
}
