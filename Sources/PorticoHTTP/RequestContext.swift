import CMicroHTTPD
import Synchronization

/// A libmicrohttpd connection pointer that may be handed to another thread.
///
/// `@unchecked` is narrow and safe here: the pointer is only ever passed to
/// `MHD_resume_connection`, which libmicrohttpd documents as callable from any thread, and only
/// by whoever removes the exchange from `ServerCore`'s suspended registry, under that registry's
/// lock, which guarantees one resume per suspension and none after the daemon stops.
struct ConnectionHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// The rendezvous between an async handler's task and the epoll thread that resumes the
/// connection: the task leaves the response here, the epoll thread collects it after resuming.
final class AsyncExchange: Sendable {
    let connection: ConnectionHandle
    let response = Mutex<Response?>(nil)

    init(connection: ConnectionHandle) {
        self.connection = connection
    }
}

/// Per-request state, created from the raw request target in the URI-log callback and freed in
/// the request-completed callback. Only the connection's own epoll thread touches it.
final class RequestContext {
    enum Phase {
        /// Headers are parsed; the handler has not been called yet.
        case headers
        /// Body bytes are being collected.
        case body
        /// The body is over the limit; the rest is discarded and 413 answered at the end.
        case tooLarge
        /// An async handler runs; the connection is suspended.
        case suspended(AsyncExchange)
        /// Whole, and held because its connection waits for one of its client's slots
        /// (``ClientLimits``); dispatched again when resumed.
        case held(AsyncExchange)
        /// A response was queued.
        case answered
    }

    let target: String
    let startNanoseconds: UInt64
    var phase = Phase.headers
    var body: [UInt8] = []
    var discarded = 0
    /// The largest body this request may have, decided once its headers are in.
    var bodyLimit = 0
    var method = ""
    /// The series of the route that answers, once routed (metrics only; nil counts as
    /// unmatched).
    var route: RouteMetrics?
    /// The client behind a trusted proxy this request counts for (``ClientLimits``), if any.
    var countedClient: String?

    init(target: String, startNanoseconds: UInt64) {
        self.target = target
        self.startNanoseconds = startNanoseconds
    }

    /// The path part of the target (before `?`), as logged and routed.
    lazy var path: String = {
        guard let question = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return target }
        return String(target[..<question])
    }()

    /// The raw query after `?`, or nil.
    var rawQuery: Substring? {
        guard let question = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return nil }
        return target[target.utf8.index(after: question)...]
    }
}
