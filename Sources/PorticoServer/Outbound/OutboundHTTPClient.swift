import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The provider's client for its own requests to URLs that apps registered (back-channel logout
/// now; Shared Signals push, client metadata documents and `jwks_uri` go through it too): one
/// HTTP/1.1 request, the answer's status, nothing else.
///
/// Written on sockets rather than URLSession for what URLSession cannot promise:
/// - **The checked address is the connected one**: the host is resolved once with the system
///   resolver, every address is checked against ``OutboundAddressPolicy`` (all must pass), and
///   the connection goes to those addresses, so a name that resolves to a public address for
///   the check and to 169.254.169.254 a moment later (DNS rebinding) reaches nothing inside.
/// - **Bounded waits**: a short connect timeout (a backend that drops packets), and a deadline
///   for the whole exchange (one that accepts and never answers, or trickles).
/// - **Bounded reading**: it reads the status line and at most ``maximumAnswerBytes``, never
///   the body, so a hostile backend answering gigabytes costs a few KiB.
///
/// No redirects are followed (a 3xx is the answer: what is sent is meant for the registered URL
/// only), no cookies are kept, and the connection is closed after each request. Blocking: call it
/// from a thread of its own, never from an HTTP thread or the Swift concurrency pool.
struct OutboundHTTPClient: Sendable {
    /// How an exchange ended.
    enum Outcome: Sendable, Equatable {
        /// The server answered with this status.
        case status(Int)
        /// No usable answer: resolving, connecting, TLS or the exchange failed or took too long.
        case failed(String)
        /// The URL is not one the provider sends to (its scheme, or an address the policy refuses);
        /// nothing was connected to. Trying again would reach the same place.
        case refused(String)
    }

    /// What an exchange gave: its outcome and how many bytes of the answer were read.
    struct Exchange: Sendable, Equatable {
        let outcome: Outcome
        let bytesRead: Int
        /// The answer's body as far as it was read (within ``maximumAnswerBytes``), when the
        /// caller asked for it (a Shared Signals receiver's error); empty otherwise.
        var body: [UInt8] = []
        /// The answer's header fields (lower-cased names), when a document was fetched.
        var headers: [String: String] = [:]
    }

    /// The most of an answer ever read: enough for any status line.
    static let maximumAnswerBytes = 4096

    /// Which addresses may be reached.
    var policy: OutboundAddressPolicy
    /// How long connecting to one address may take.
    var connectTimeout: Duration
    /// How long the whole exchange may take, resolving and connecting included.
    var timeout: Duration
    /// Trusted certificates (PEM) instead of the system's, for tests with their own CA; nil in
    /// production.
    var trustedCertificatesFile: String? = nil

    /// POSTs `body` as `contentType` to `url` and reads the answer's status.
    func post(_ body: [UInt8], contentType: String, to url: URL) -> Exchange {
        send(method: "POST", body: body, contentType: contentType, to: url)
    }

    /// POSTs `body` with `headers` too, and reads the answer's body as well as its status,
    /// within ``maximumAnswerBytes`` (a Shared Signals push, whose receiver explains a 400 in
    /// JSON, RFC 8935 §2.3).
    func post(_ body: [UInt8], contentType: String, headers: [(String, String)], readingBody: Bool, to url: URL)
        -> Exchange
    {
        send(method: "POST", body: body, contentType: contentType, headers: headers, readingBody: readingBody, to: url)
    }

    /// GETs `url` and reads the answer's status (the documents a provider fetches, such as a
    /// `jwks_uri`, will need their body read too, to a bound of their own).
    func get(_ url: URL) -> Exchange {
        send(method: "GET", body: nil, contentType: nil, to: url)
    }

    /// GETs the document at `url` (a client metadata document, a `jwks_uri`): https only, and
    /// the whole body read, up to `maximumBytes`; a longer answer fails rather than being cut.
    /// A 2xx's headers and body come back in the ``Exchange``.
    func getDocument(_ url: URL, maximumBytes: Int) -> Exchange {
        guard url.scheme?.lowercased() == "https" else {
            return Exchange(outcome: .refused("\(url.absoluteString) is not an https URL"), bytesRead: 0)
        }
        // Called on the server's worker threads, not a thread of the outbox's own: a document
        // server that hangs up while TLS writes must not end the process.
        Self.ignoreBrokenPipesOnThisThread()
        return send(
            method: "GET", body: nil, contentType: nil, headers: [("Accept", "application/json")],
            document: maximumBytes, to: url)
    }

    private func send(
        method: String, body: [UInt8]?, contentType: String?, headers: [(String, String)] = [],
        readingBody: Bool = false, document: Int? = nil, to url: URL
    ) -> Exchange {
        let deadline = ContinuousClock.now + timeout
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
            let host = components.host, !host.isEmpty, components.user == nil, components.password == nil
        else { return Exchange(outcome: .refused("\(url.absoluteString) is not an http or https URL"), bytesRead: 0) }
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        guard (1...65535).contains(port) else {
            return Exchange(outcome: .refused("\(url.absoluteString) has no valid port"), bytesRead: 0)
        }
        let bareHost = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let addresses: [OutboundResolver.Address]
        do {
            addresses = try OutboundResolver.resolve(bareHost, port: port)
        } catch {
            return Exchange(outcome: .failed("\(error)"), bytesRead: 0)
        }
        // Every address must pass: a name that also resolves inside is not one to trust.
        for address in addresses {
            if let refusal = policy.refusal(forAddress: address.text) {
                return Exchange(outcome: .refused("\(host) resolves to \(refusal)"), bytesRead: 0)
            }
        }
        var failures: [String] = []
        for address in addresses {
            let connection: OutboundConnection
            do {
                connection = try OutboundConnection(
                    to: address, host: bareHost, useTLS: scheme == "https", connectTimeout: connectTimeout,
                    deadline: deadline, trustedCertificatesFile: trustedCertificatesFile)
            } catch {
                failures.append("\(error)")
                continue
            }
            let bytes = request(method, body: body, contentType: contentType, headers: headers, components: components)
            if let document { return OutboundDocumentReader(limit: document).exchange(on: connection, request: bytes) }
            return exchange(on: connection, request: bytes, readingBody: readingBody)
        }
        return Exchange(outcome: .failed(failures.joined(separator: "; ")), bytesRead: 0)
    }

    /// The request's bytes: the origin-form target, `Host`, the body's type and length.
    private func request(
        _ method: String, body: [UInt8]?, contentType: String?, headers: [(String, String)],
        components: URLComponents
    ) -> [UInt8] {
        var target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { target += "?" + query }
        var host = components.percentEncodedHost ?? ""
        if host.contains(":") && !host.hasPrefix("[") { host = "[\(host)]" }
        if let explicit = components.port { host += ":\(explicit)" }
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host)\r\n"
        if let body {
            head += "Content-Type: \(contentType ?? "application/octet-stream")\r\nContent-Length: \(body.count)\r\n"
        }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Cache-Control: no-store\r\nUser-Agent: Portico\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + (body ?? [])
    }

    /// Sends `request` and reads until the status line is complete (or the limit, the end of
    /// the answer, or the deadline), then closes.
    private func exchange(on connection: OutboundConnection, request: [UInt8], readingBody: Bool) -> Exchange {
        var answer: [UInt8] = []
        do {
            try connection.send(request)
            while (readingBody || !answer.contains(0x0A)) && answer.count < Self.maximumAnswerBytes {
                let chunk = try connection.receive(maximum: Self.maximumAnswerBytes - answer.count)
                if chunk.isEmpty { break }
                answer += chunk
                if readingBody && Self.isComplete(answer) { break }
            }
        } catch {
            return Exchange(outcome: .failed("\(error)"), bytesRead: answer.count)
        }
        guard let status = Self.status(in: answer) else {
            let reason =
                answer.isEmpty
                ? "the connection closed without an answer"
                : "the answer has no HTTP status line in its first \(answer.count) bytes"
            return Exchange(outcome: .failed(reason), bytesRead: answer.count)
        }
        var exchange = Exchange(outcome: .status(status), bytesRead: answer.count)
        if readingBody, let end = Self.endOfHead(in: answer) { exchange.body = Array(answer[end...]) }
        return exchange
    }

    /// Whether `answer` holds all that is wanted of it, so that a peer keeping the connection
    /// open costs no wait: the head of a 2xx (its body is not needed), or the head and as many
    /// body bytes as `Content-Length` says.
    private static func isComplete(_ answer: [UInt8]) -> Bool {
        guard let end = endOfHead(in: answer), let status = status(in: answer) else { return false }
        if (200..<300).contains(status) { return true }
        let head = String(decoding: answer[..<end], as: UTF8.self).lowercased()
        guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
            let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        else { return false }
        return answer.count - end >= length
    }

    /// Where the body starts: after the first empty line.
    static func endOfHead(in answer: [UInt8]) -> Int? {
        guard answer.count >= 4 else { return nil }
        for index in 0...(answer.count - 4)
        where answer[index] == 0x0D && answer[index + 1] == 0x0A && answer[index + 2] == 0x0D
            && answer[index + 3] == 0x0A
        {
            return index + 4
        }
        return nil
    }

    /// The status of an `HTTP/1.x NNN …` line at the start of `answer`.
    static func status(in answer: [UInt8]) -> Int? {
        guard let end = answer.firstIndex(of: 0x0A) else { return nil }
        let line = String(decoding: answer[..<end], as: UTF8.self)
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0] == "HTTP/1.1" || parts[0] == "HTTP/1.0", parts[1].count == 3,
            let status = Int(parts[1]), (100...599).contains(status)
        else { return nil }
        return status
    }

    /// Keeps SIGPIPE from the calling thread: a peer that closes while TLS writes makes the
    /// write fail rather than end the process. Call once on each thread that sends.
    static func ignoreBrokenPipesOnThisThread() {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }
}
