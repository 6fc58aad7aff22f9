import CMicroHTTPD

/// A response turned into a libmicrohttpd response once and queued as is for every request, so
/// hot endpoints whose answer rarely changes (`/healthz`, discovery, JWKS) allocate nothing to
/// answer.
///
/// Constant routes make one at registration; a `prepared` route's handler returns one it keeps
/// and replaces when its document changes. Replacing is safe while earlier requests are still
/// being sent: libmicrohttpd holds its own reference to a queued response.
public final class PreparedResponse: Sendable {
    /// The libmicrohttpd response pointer.
    ///
    /// `@unchecked` is safe: the response is complete (body copied, headers added) before the
    /// pointer is shared, is never modified afterwards, libmicrohttpd reference-counts it under
    /// its own mutex when several threads queue it, and it is destroyed only in `deinit`.
    private struct Handle: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// The response as the handler author wrote it, for the paths that must build a fresh one.
    public let response: Response
    private let handle: Handle?

    /// Converts `response` for libmicrohttpd now, once.
    public init(_ response: Response) {
        self.response = response
        handle = Self.makeResponse(response).map(Handle.init(pointer:))
    }

    deinit {
        if let handle {
            MHD_destroy_response(handle.pointer)
        }
    }

    /// The shared libmicrohttpd response, or nil when it could not be built (for example a
    /// header with CR/LF), in which case the ordinary path answers and reports the error.
    var pointer: OpaquePointer? { handle?.pointer }

    private static func makeResponse(_ response: Response) -> OpaquePointer? {
        let created = response.body.withUnsafeBytes { buffer in
            MHD_create_response_from_buffer(
                buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let created else { return nil }
        for (name, value) in response.headers where MHD_add_response_header(created, name, value) != .YES {
            MHD_destroy_response(created)
            return nil
        }
        return created
    }
}
