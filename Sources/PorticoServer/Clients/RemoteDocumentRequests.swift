import PorticoHTTP

/// Which back-channel requests may make the provider fetch a document from an app's server: a
/// `private_key_jwt` assertion or a signed request object (keys at a `jwks_uri`), or a client
/// named by a client metadata document's URL (the document itself).
///
/// Why it matters: on SQLite these endpoints run on the epoll threads (``RouteExecution``), and
/// such a fetch waits up to the fetcher's timeout on a server the app (or an attacker
/// registering many such clients) controls. So these requests go to the worker pool; every
/// other request still runs where it did, at no cost beyond reading its form once more. The
/// test is deliberately broad: a request sent there needlessly only takes one more hop.
enum RemoteDocumentRequests {
    /// Whether answering `request` might fetch a client's document or keys.
    static func mayFetch(_ request: Request) -> Bool {
        if let authorization = request.headers["Authorization"],
            let basic = BasicCredentials(authorization: authorization)
        {
            var user = basic.user
            if user.utf8.contains(UInt8(ascii: "%")) { user = (try? basic.formURLDecoded())?.user ?? user }
            if ClientMetadataDocuments.isDocumentURL(user) { return true }
        }
        // The bytes first: most back-channel forms (a refresh, client credentials) hold nothing
        // that could fetch, and reading them whole twice cost every such request a few µs.
        guard mightName(request.body) else { return false }
        // A form the endpoint will refuse fetches nothing.
        guard let parameters = try? OAuthParameters(formOf: request) else { return false }
        if parameters["client_assertion"] != nil || parameters["request"] != nil { return true }
        if let id = parameters["client_id"], ClientMetadataDocuments.isDocumentURL(id) { return true }
        return false
    }

    /// Whether `body` could name an assertion, a request object or a URL: it holds `assertion`,
    /// `request`, `://`, or any percent-encoding (which could spell any of them).
    static func mightName(_ body: [UInt8]) -> Bool {
        if body.contains(UInt8(ascii: "%")) { return true }
        return needles.contains { contains(body, $0) }
    }

    private static let needles = [Array("assertion".utf8), Array("request".utf8), Array("://".utf8)]

    private static func contains(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
        guard bytes.count >= needle.count, let first = needle.first else { return false }
        var index = 0
        while index <= bytes.count - needle.count {
            if bytes[index] == first && bytes[index..<(index + needle.count)].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }
}
